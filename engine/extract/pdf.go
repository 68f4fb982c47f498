package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fixed options of each tool; they are recorded in Tool.Options.
var (
	pdftotextOptions = []string{"-enc", "UTF-8", "-eol", "unix", "-nopgbrk"}
	pdftoppmOptions  = []string{"-r", "300", "-gray", "-png"}
	// page_separator= stops tesseract from ending each page with a form feed.
	tesseractOptions = []string{"--psm", "3", "-c", "page_separator="}
	// postprocess names what this package does to the tools' output, and
	// its version: form feeds become LF, the bidi embedding controls
	// U+202A-U+202E that pdftotext wraps around right-to-left lines and
	// numbers are dropped (they are not in the PDF, and they split words
	// and numbers for search), and the text ends with one LF. Bump it
	// whenever that would change bytes.
	postprocess = "chronicle-postprocess=1"
)

// bidiControls are the embedding and override controls postprocess drops.
var bidiControls = strings.NewReplacer("\u202a", "", "\u202b", "", "\u202c", "", "\u202d", "", "\u202e", "")

// postprocessText applies postprocess to valid UTF-8 tool output.
func postprocessText(out []byte) []byte {
	s := strings.ReplaceAll(string(out), "\f", "\n")
	return NormalizeText([]byte(bidiControls.Replace(s)))
}

// debianPackage names what to install for each tool.
var debianPackage = map[string]string{
	"pdftotext": "poppler-utils",
	"pdftoppm":  "poppler-utils",
	"tesseract": "tesseract-ocr",
}

// lookTool finds a tool on PATH or says which Debian package has it.
func lookTool(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		pkg := debianPackage[name]
		return "", Fail("", ErrToolMissing, "%s not found; install %s (apt install %s)", name, pkg, pkg)
	}
	return path, nil
}

// run runs one tool without a shell, bounded in time and output.
// It returns stdout, the first line of stderr, and an *Error on failure.
func run(ctx context.Context, opts Options, maxOut int64, env []string, path string, args ...string) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var stderr limitedBuffer
	stderr.max = 64 << 10
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", Fail("", ErrToolFailed, "%s: %v", filepath.Base(path), err)
	}
	if err := cmd.Start(); err != nil {
		return nil, "", Fail("", ErrToolFailed, "%s did not start: %v", filepath.Base(path), err)
	}
	out, readErr := io.ReadAll(io.LimitReader(stdout, maxOut+1))
	tooMuch := int64(len(out)) > maxOut
	if tooMuch {
		cancel() // kills the tool
	}
	_, _ = io.Copy(io.Discard, stdout)
	waitErr := cmd.Wait()
	name := filepath.Base(path)
	errLine := OneLine(stderr.String())
	switch {
	case tooMuch:
		return nil, errLine, Fail("", ErrLimit, "%s wrote more than %d bytes of text (MaxText)", name, maxOut)
	case ctx.Err() == context.DeadlineExceeded:
		return nil, errLine, Fail("", ErrToolFailed, "%s took longer than %s (Timeout)", name, opts.Timeout)
	case ctx.Err() != nil:
		return nil, errLine, ctx.Err()
	case readErr != nil:
		return nil, errLine, Fail("", ErrToolFailed, "reading %s's output: %v", name, readErr)
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			return out, errLine, &exitError{code: ee.ExitCode(), line: errLine}
		}
		return nil, errLine, Fail("", ErrToolFailed, "%s: %v", name, waitErr)
	}
	return out, errLine, nil
}

// exitError is a tool's non-zero exit; callers turn it into an *Error.
type exitError struct {
	code int
	line string
}

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d: %s", e.code, e.line) }

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		if len(p) > room {
			b.Buffer.Write(p[:room])
		} else {
			b.Buffer.Write(p)
		}
	}
	return len(p), nil
}

// toolVersion runs NAME -v (or --version) and returns the version word
// after "NAME version " or "NAME " on the first line that has it.
func toolVersion(ctx context.Context, opts Options, path, name, flag string) (string, error) {
	c, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	out, _ := exec.CommandContext(c, path, flag).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == name && f[1] == "version":
			return f[2], nil
		case len(f) == 2 && f[0] == name:
			return f[1], nil
		}
	}
	return "", Fail("", ErrToolFailed, "%s %s printed no version", name, flag)
}

// extractPDF derives the text of a PDF with pdftotext, or by OCR.
func extractPDF(ctx context.Context, data []byte, opts Options) ([]Part, error) {
	// A file cut short has no %%EOF at all (an earlier revision's %%EOF
	// is enough: pdftotext reads that revision).
	if !bytes.Contains(data, []byte("%%EOF")) {
		return nil, Fail("", ErrMalformed, "the PDF is truncated: it has no %%%%EOF marker")
	}
	pdftotext, err := lookTool("pdftotext")
	if err != nil {
		return nil, err
	}
	version, err := toolVersion(ctx, opts, pdftotext, "pdftotext", "-v")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "chronicle-extract-")
	if err != nil {
		return nil, Fail("", ErrToolFailed, "temporary directory: %v", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "original.pdf")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, Fail("", ErrToolFailed, "temporary file: %v", err)
	}
	args := append(append([]string{}, pdftotextOptions...), file, "-")
	out, line, err := run(ctx, opts, opts.MaxText, nil, pdftotext, args...)
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) {
			return nil, err
		}
		low := strings.ToLower(ee.line)
		switch {
		case strings.Contains(low, "password") || strings.Contains(low, "encrypt") || ee.code == 3:
			return nil, &Error{Err: ErrEncrypted}
		case ee.code == 1:
			return nil, Fail("", ErrMalformed, "pdftotext cannot open the PDF: %s", strings.ReplaceAll(line, file, "the file"))
		}
		return nil, Fail("", ErrToolFailed, "pdftotext failed (exit status %d): %s", ee.code, strings.ReplaceAll(line, file, "the file"))
	}
	if !utf8.Valid(out) {
		return nil, Fail("", ErrToolFailed, "pdftotext wrote invalid UTF-8 at byte %d", InvalidAt(out))
	}
	if len(bytes.Trim(out, " \t\r\n\f\v")) > 0 {
		options := append(append([]string{}, pdftotextOptions...), postprocess)
		return []Part{{Text: postprocessText(out), Tool: Tool{Name: "pdftotext", Version: version, Options: options}}}, nil
	}
	if !opts.OCR {
		return nil, &Error{Err: ErrNoTextLayer}
	}
	return ocrPDF(ctx, dir, file, opts)
}

// ocrPDF renders each page with pdftoppm and reads it with tesseract.
func ocrPDF(ctx context.Context, dir, file string, opts Options) ([]Part, error) {
	pdftoppm, err := lookTool("pdftoppm")
	if err != nil {
		return nil, err
	}
	tesseract, err := lookTool("tesseract")
	if err != nil {
		return nil, err
	}
	ppmVersion, err := toolVersion(ctx, opts, pdftoppm, "pdftoppm", "-v")
	if err != nil {
		return nil, err
	}
	tessVersion, err := toolVersion(ctx, opts, tesseract, "tesseract", "--version")
	if err != nil {
		return nil, err
	}
	langs, err := ocrLanguages(ctx, opts, tesseract)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(dir, "page")
	args := append(append([]string{}, pdftoppmOptions...), file, prefix)
	if _, line, err := run(ctx, opts, 1<<20, nil, pdftoppm, args...); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return nil, Fail("", ErrToolFailed, "pdftoppm failed (exit status %d): %s", ee.code, strings.ReplaceAll(line, file, "the file"))
		}
		return nil, err
	}
	pages, err := renderedPages(dir)
	if err != nil {
		return nil, err
	}
	// One thread: the same result every time, and a fair share of the CPU.
	env := []string{"OMP_THREAD_LIMIT=1"}
	var text bytes.Buffer
	for i, page := range pages {
		args := append([]string{page, "-", "-l", langs}, tesseractOptions...)
		out, line, err := run(ctx, opts, opts.MaxText, env, tesseract, args...)
		if err != nil {
			var ee *exitError
			if errors.As(err, &ee) {
				return nil, Fail("", ErrToolFailed, "tesseract failed on page %d (exit status %d): %s", i+1, ee.code, line)
			}
			return nil, err
		}
		if !utf8.Valid(out) {
			return nil, Fail("", ErrToolFailed, "tesseract wrote invalid UTF-8 on page %d", i+1)
		}
		if i > 0 {
			text.WriteByte('\n')
		}
		text.Write(bytes.TrimRight(bytes.ReplaceAll(out, []byte("\f"), nil), " \t\r\n"))
		text.WriteByte('\n')
		if err := CheckText("", int64(text.Len()), opts); err != nil {
			return nil, err
		}
	}
	options := []string{"pdftoppm " + ppmVersion + " " + strings.Join(pdftoppmOptions, " "), "-l", langs}
	options = append(options, tesseractOptions...)
	options = append(options, env...)
	options = append(options, postprocess)
	return []Part{{Text: postprocessText(text.Bytes()), Tool: Tool{Name: "tesseract", Version: tessVersion, Options: options}}}, nil
}

// ocrLanguages is "ara+eng" when tesseract lists both, else "eng".
func ocrLanguages(ctx context.Context, opts Options, tesseract string) (string, error) {
	out, _, err := run(ctx, opts, 1<<20, nil, tesseract, "--list-langs")
	if err != nil {
		return "", Fail("", ErrToolFailed, "tesseract --list-langs failed: %v", err)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	switch {
	case have["ara"] && have["eng"]:
		return "ara+eng", nil
	case have["eng"]:
		return "eng", nil
	}
	return "", Fail("", ErrToolMissing, "tesseract has no English data; install tesseract-ocr-eng (apt install tesseract-ocr-eng)")
}

// renderedPages lists page-N.png in page order (pdftoppm pads N by the
// page count, so sort by the number, not the name).
func renderedPages(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, Fail("", ErrToolFailed, "reading the rendered pages: %v", err)
	}
	type page struct {
		n    int
		path string
	}
	var pages []page
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "page-") || !strings.HasSuffix(name, ".png") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "page-"), ".png"))
		if err != nil {
			continue
		}
		pages = append(pages, page{n, filepath.Join(dir, name)})
	}
	if len(pages) == 0 {
		return nil, Fail("", ErrToolFailed, "pdftoppm rendered no page")
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].n < pages[j].n })
	out := make([]string, len(pages))
	for i, p := range pages {
		out[i] = p.path
	}
	return out, nil
}
