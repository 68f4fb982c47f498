package extract_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/casper-chronicle/chronicle/engine/extract"
	_ "github.com/casper-chronicle/chronicle/engine/extract/parsers"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the extractors' output")

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// needTools fails when CI is set and a tool is missing, and skips with
// what to install otherwise.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			pkg := extract.DebianPackage[tool]
			msg := tool + " not found: apt-get install -y poppler-utils tesseract-ocr tesseract-ocr-ara tesseract-ocr-eng (" + pkg + " has it)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// needLangs is needTools for tesseract's language data.
func needLangs(t *testing.T, langs ...string) {
	t.Helper()
	out, err := exec.Command("tesseract", "--list-langs").CombinedOutput()
	require.NoError(t, err)
	have := map[string]bool{}
	for _, l := range strings.Split(string(out), "\n") {
		have[strings.TrimSpace(l)] = true
	}
	for _, l := range langs {
		if !have[l] {
			msg := "tesseract has no " + l + " data: apt-get install -y tesseract-ocr-" + l
			if os.Getenv("CI") != "" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

func TestDetect(t *testing.T) {
	cases := []struct {
		name string
		data string
		want extract.Kind
	}{
		{"a.pdf", "%PDF-1.7\n...", extract.KindPDF},
		{"x.txt", "%PDF-1.4 binary \x00\xff", extract.KindPDF},
		{"box", "From alice@example.org Mon Mar  2 10:00:00 2026\nFrom: Alice <a@x>\n\nhi\n", extract.KindMbox},
		{"letter.txt", "From the start of the year, we saw growth.\nNothing else.\n", extract.KindText},
		{"m.eml", "From: a@x\r\nTo: b@x\r\nSubject: s\r\n\r\nbody\r\n", extract.KindEmail},
		{"m.txt", "Received: from x\n\tby y\nMessage-ID: <1@x>\n\nbody", extract.KindEmail},
		{"one-header.eml", "Subject: only one known header\nX-Other: 1\n\nbody\n", extract.KindText},
		{"cont-first", " From: a@x\nTo: b@x\n\n", extract.KindText},
		{"notes.txt", "Note: one\nTo: two\nplain line\n", extract.KindText},
		{"p.html", "\xef\xbb\xbf  <!DOCTYPE html><html></html>", extract.KindHTML},
		{"p", "<!-- saved from url=(0014)about:internet -->\n<HTML><body>x</body></HTML>", extract.KindHTML},
		{"p.txt", "<head><title>t</title></head>", extract.KindHTML},
		{"p.txt", "<BODY>x", extract.KindHTML},
		{"frag.htm", "  <p>fragment</p>", extract.KindHTML},
		{"frag.HTML", "<div>x</div>", extract.KindHTML},
		{"frag.txt", "<div>x</div>", extract.KindText},
		{"u16.html", "\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00", extract.KindHTML},
		{"bin.html", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", extract.KindBinary},
		{"latin1.txt", "caf\xe9\n", extract.KindBinary},
		{"nul.txt", "a\x00b", extract.KindBinary},
		{"empty", "", extract.KindText},
		{"arabic.txt", "مرحبا\n", extract.KindText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, extract.Detect(c.name, []byte(c.data)))
		})
	}
	for name, want := range map[string]extract.Kind{
		"plain.eml": extract.KindEmail, "alternative.eml": extract.KindEmail, "charset.eml": extract.KindEmail,
		"attachments.eml": extract.KindEmail, "three.mbox": extract.KindMbox, "english.html": extract.KindHTML,
		"arabic.html": extract.KindHTML, "arabic-1256.html": extract.KindHTML, "english.pdf": extract.KindPDF,
	} {
		require.Equal(t, want, extract.Detect(name, readFile(t, name)), name)
	}
}

// TestGolden extracts each sample twice (the bytes must not change) and
// compares the original's own text with testdata/NAME.golden.
func TestGolden(t *testing.T) {
	cases := []struct {
		file  string
		kind  extract.Kind
		tool  string
		tools []string
	}{
		{"english.html", extract.KindHTML, "chronicle-html", nil},
		{"arabic.html", extract.KindHTML, "chronicle-html", nil},
		{"arabic-1256.html", extract.KindHTML, "chronicle-html", nil},
		{"plain.eml", extract.KindEmail, "chronicle-mail", nil},
		{"alternative.eml", extract.KindEmail, "chronicle-mail", nil},
		{"htmlonly.eml", extract.KindEmail, "chronicle-mail", nil},
		{"charset.eml", extract.KindEmail, "chronicle-mail", nil},
		{"attachments.eml", extract.KindEmail, "chronicle-mail", nil},
		{"english.pdf", extract.KindPDF, "pdftotext", []string{"pdftotext"}},
		{"arabic.pdf", extract.KindPDF, "pdftotext", []string{"pdftotext"}},
		{"encrypted-nopassword.pdf", extract.KindPDF, "pdftotext", []string{"pdftotext"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			needTools(t, c.tools...)
			data := readFile(t, c.file)
			require.Equal(t, c.kind, extract.Detect(c.file, data))
			parts, err := extract.Extract(context.Background(), c.kind, data, extract.Options{})
			require.NoError(t, err)
			again, err := extract.Extract(context.Background(), c.kind, data, extract.Options{})
			require.NoError(t, err)
			require.Equal(t, parts, again, "same input, same tool: same bytes")
			require.NotEmpty(t, parts)
			own := parts[0]
			require.Equal(t, "", own.Path)
			require.Equal(t, c.tool, own.Tool.Name)
			require.NotEmpty(t, own.Tool.Version)
			require.NotNil(t, own.Tool.Options)
			require.True(t, utf8.Valid(own.Text))
			require.True(t, bytes.HasSuffix(own.Text, []byte("\n")))
			golden := filepath.Join("testdata", c.file+".golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, own.Text, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -run TestGolden -update to create it")
			require.Equal(t, string(want), string(own.Text))
		})
	}
}

func TestToolRecords(t *testing.T) {
	parts, err := extract.Extract(context.Background(), extract.KindHTML, readFile(t, "arabic-1256.html"), extract.Options{})
	require.NoError(t, err)
	require.Equal(t, extract.Tool{Name: "chronicle-html", Version: "1 (golang.org/x/net " + extract.XnetVersion + ")", Options: []string{"charset=windows-1256"}}, parts[0].Tool)
	parts, err = extract.Extract(context.Background(), extract.KindEmail, readFile(t, "plain.eml"), extract.Options{})
	require.NoError(t, err)
	require.Equal(t, extract.Tool{Name: "chronicle-mail", Version: "1 (enmime " + extract.EnmimeVersion + ", golang.org/x/net " + extract.XnetVersion + ")", Options: []string{}}, parts[0].Tool)

	needTools(t, "pdftotext")
	parts, err = extract.Extract(context.Background(), extract.KindPDF, readFile(t, "english.pdf"), extract.Options{})
	require.NoError(t, err)
	out, _ := exec.Command("pdftotext", "-v").CombinedOutput()
	require.Contains(t, string(out), "pdftotext version "+parts[0].Tool.Version+"\n")
	require.Equal(t, []string{"-enc", "UTF-8", "-eol", "unix", "-nopgbrk", "chronicle-postprocess=1"}, parts[0].Tool.Options)
}

// TestLibraryVersions keeps the fallback constants equal to go.mod.
func TestLibraryVersions(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	require.NoError(t, err)
	require.Contains(t, string(mod), extract.EnmimeModule+" "+extract.EnmimeVersion+"\n")
	require.Contains(t, string(mod), extract.XnetModule+" "+extract.XnetVersion+"\n")
	require.Equal(t, extract.EnmimeVersion, extract.BuildDeps()[extract.EnmimeModule])
	require.Equal(t, extract.XnetVersion, extract.BuildDeps()[extract.XnetModule])
}

func TestNestingWithinLimit(t *testing.T) {
	parts, err := extract.Extract(context.Background(), extract.KindEmail, nested(8), extract.Options{})
	require.NoError(t, err)
	require.Equal(t, "From: a@x\nTo: b@x\nSubject: deep\n\ndeep text\n", string(parts[0].Text))
}

func TestMailParts(t *testing.T) {
	parts, err := extract.Extract(context.Background(), extract.KindEmail, readFile(t, "attachments.eml"), extract.Options{})
	require.NoError(t, err)
	require.Len(t, parts, 4)
	require.Equal(t, "invoice.pdf", parts[1].Path)
	require.Equal(t, "application/pdf", parts[1].ContentType)
	require.Equal(t, readFile(t, "english.pdf"), parts[1].Original, "decoded from base64 exactly")
	require.Nil(t, parts[1].Text)

	require.Equal(t, "bank_notice.eml", parts[2].Path, "the / of bank/notice.eml is sanitised")
	require.Equal(t, "message/rfc822", parts[2].ContentType)
	require.Equal(t, extract.KindEmail, extract.Detect(parts[2].Path, parts[2].Original))
	inner, err := extract.Extract(context.Background(), extract.KindEmail, parts[2].Original, extract.Options{Depth: 1})
	require.NoError(t, err)
	require.Equal(t, "From: Bank <notice@bank.example>\nTo: Grace <grace@example.org>\nDate: Thu, 5 Mar 2026 11:00:00 +0000\nSubject: Transfer received\nMessage-ID: <bank-7@bank.example>\n\nWe received 1,200 EUR.\n", string(inner[0].Text))

	require.Equal(t, "attachment-3", parts[3].Path, "an inline image without a name")
	require.Equal(t, "image/png", parts[3].ContentType)
	require.True(t, bytes.HasPrefix(parts[3].Original, []byte("\x89PNG\r\n\x1a\n")))
}

func TestMbox(t *testing.T) {
	data := readFile(t, "three.mbox")
	parts, err := extract.Extract(context.Background(), extract.KindMbox, data, extract.Options{})
	require.NoError(t, err)
	require.Len(t, parts, 3)
	for i, p := range parts {
		require.Equal(t, []string{"message-0001", "message-0002", "message-0003"}[i], p.Path)
		require.Equal(t, "message/rfc822", p.ContentType)
		require.Nil(t, p.Text)
		require.Equal(t, extract.KindEmail, extract.Detect(p.Path, p.Original))
		require.True(t, bytes.HasPrefix(p.Original, []byte("From: ")))
		require.True(t, bytes.HasSuffix(p.Original, []byte(".\n")), "the separating empty line is not part of %s", p.Path)
	}
	require.Contains(t, string(parts[0].Original), "\n>From here on, a quoted line.\n", ">From quoting is kept")
	require.Contains(t, string(parts[1].Original), "\nFrom inside the body, not after an empty line.\n")

	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	parts2, err := extract.Extract(context.Background(), extract.KindMbox, crlf, extract.Options{})
	require.NoError(t, err)
	require.Len(t, parts2, 3)
	require.Equal(t, bytes.ReplaceAll(parts[2].Original, []byte("\n"), []byte("\r\n")), parts2[2].Original)

	// The messages extract in turn.
	text, err := extract.Extract(context.Background(), extract.KindEmail, parts[2].Original, extract.Options{Depth: 1})
	require.NoError(t, err)
	require.Equal(t, "From: Carol <carol@example.org>\nTo: Bob <bob@example.org>\nDate: Mon, 2 Mar 2026 12:00:00 +0000\nSubject: third\n\nThree.\n", string(text[0].Text))
}

// nested builds a message whose multipart parts nest depth deep.
func nested(depth int) []byte {
	var b strings.Builder
	b.WriteString("From: a@x\nTo: b@x\nSubject: deep\nMIME-Version: 1.0\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=\"b%d\"\n\n--b%d\n", i, i)
	}
	b.WriteString("Content-Type: text/plain\n\ndeep text\n")
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\n", i)
	}
	return []byte(b.String())
}

// manyParts builds a message with n small attachments.
func manyParts(n int) []byte {
	var b strings.Builder
	b.WriteString("From: a@x\nTo: b@x\nSubject: many\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"m\"\n\n--m\nContent-Type: text/plain\n\nsee attached\n")
	for i := 0; i < n; i++ {
		b.WriteString("--m\nContent-Type: application/octet-stream\nContent-Disposition: attachment\n\nx\n")
	}
	b.WriteString("--m--\n")
	return []byte(b.String())
}

// bigBase64 builds a message with a base64 part of size bytes (encoded).
func bigBase64(size int) []byte {
	line := strings.Repeat("QUJD", 19) + "\n" // 76 characters
	var b bytes.Buffer
	b.WriteString("From: a@x\nTo: b@x\nSubject: big\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"m\"\n\n--m\nContent-Type: text/plain\n\nhuge attachment\n--m\nContent-Type: application/octet-stream\nContent-Disposition: attachment; filename=\"big.bin\"\nContent-Transfer-Encoding: base64\n\n")
	for b.Len() < size {
		b.WriteString(line)
	}
	b.WriteString("--m--\n")
	return b.Bytes()
}

// TestHostile: each bad input is an *Error with the right sentinel and a
// one-line message.
func TestHostile(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	cases := []struct {
		name  string
		kind  extract.Kind
		data  []byte
		opts  extract.Options
		want  error
		msg   string // a part of the message
		tools []string
	}{
		{"binary named .html", extract.KindHTML, png, extract.Options{}, extract.ErrMalformed, "not valid UTF-8 at byte 0", nil},
		{"NUL in html", extract.KindHTML, []byte("<html><body>a\x00b</body></html>"), extract.Options{}, extract.ErrMalformed, "NUL byte at byte 13", nil},
		{"invalid UTF-8 in html", extract.KindHTML, []byte("<p>caf\xe9</p>"), extract.Options{}, extract.ErrMalformed, "at byte 6", nil},
		{"unknown html charset", extract.KindHTML, []byte(`<html><head><meta charset="x-klingon"></head><body>x</body></html>`), extract.Options{}, extract.ErrCharset, `unknown charset "x-klingon"`, nil},
		{"html text over MaxText", extract.KindHTML, []byte("<p>" + strings.Repeat("word ", 100) + "</p>"), extract.Options{MaxText: 50}, extract.ErrLimit, "MaxText", nil},
		{"50 MB base64 part", extract.KindEmail, bigBase64(50 << 20), extract.Options{MaxExpanded: 1 << 20}, extract.ErrLimit, "MaxExpanded", nil},
		{"too many parts", extract.KindEmail, manyParts(20), extract.Options{MaxParts: 10}, extract.ErrLimit, "more than 10 parts (MaxParts)", nil},
		{"deep nesting", extract.KindEmail, nested(9), extract.Options{}, extract.ErrLimit, "nested more than 8 deep", nil},
		{"5000-deep nesting, refused before parsing", extract.KindEmail, nested(5000), extract.Options{}, extract.ErrLimit, "nested more than 8 deep", nil},
		{"depth of originals", extract.KindEmail, readFile(t, "plain.eml"), extract.Options{Depth: 9}, extract.ErrLimit, "MaxDepth", nil},
		{"unknown mail charset", extract.KindEmail, readFile(t, "unknown-charset.eml"), extract.Options{}, extract.ErrCharset, `unknown charset "x-no-such-charset"`, nil},
		{"malformed mime", extract.KindEmail, readFile(t, "malformed.eml"), extract.Options{}, extract.ErrMalformed, "malformed MIME", nil},
		{"8-bit body without charset", extract.KindEmail, []byte("From: a@x\nTo: b@x\n\ncaf\xe9\n"), extract.Options{}, extract.ErrCharset, "declares no charset", nil},
		{"bad base64 attachment", extract.KindEmail, []byte("From: a@x\nTo: b@x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: application/pdf\nContent-Disposition: attachment; filename=\"x.pdf\"\nContent-Transfer-Encoding: base64\n\n!!!!\n--m--\n"), extract.Options{}, extract.ErrMalformed, "attachment x.pdf: invalid base64", nil},
		{"too many mbox messages", extract.KindMbox, bytes.Repeat([]byte("From a\nSubject: x\n\nbody\n\n"), 5), extract.Options{MaxParts: 4}, extract.ErrLimit, "message-0005: more than 4 parts", nil},
		{"not an mbox", extract.KindMbox, []byte("Subject: x\n\n"), extract.Options{}, extract.ErrMalformed, "must start", nil},
		{"text is not an original", extract.KindText, []byte("hello"), extract.Options{}, extract.ErrMalformed, "ingest it as it is", nil},
		{"binary", extract.KindBinary, png, extract.Options{}, extract.ErrMalformed, "binary data", nil},
		{"truncated pdf", extract.KindPDF, readFile(t, "truncated.pdf"), extract.Options{}, extract.ErrMalformed, "truncated", []string{"pdftotext"}},
		{"cut pdf with an %%EOF", extract.KindPDF, append(readFile(t, "truncated.pdf")[:2000], "\n%%EOF\n"...), extract.Options{}, extract.ErrMalformed, "pdftotext cannot open the PDF", []string{"pdftotext"}},
		{"encrypted pdf", extract.KindPDF, readFile(t, "encrypted.pdf"), extract.Options{}, extract.ErrEncrypted, "the PDF is encrypted", []string{"pdftotext"}},
		{"image-only pdf", extract.KindPDF, readFile(t, "scan.pdf"), extract.Options{}, extract.ErrNoTextLayer, "no text layer; OCR not run (use --ocr)", []string{"pdftotext"}},
		{"pdf text over MaxText", extract.KindPDF, readFile(t, "english.pdf"), extract.Options{MaxText: 10}, extract.ErrLimit, "MaxText", []string{"pdftotext"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			needTools(t, c.tools...)
			parts, err := extract.Extract(context.Background(), c.kind, c.data, c.opts)
			require.Error(t, err)
			require.Nil(t, parts)
			var e *extract.Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			require.ErrorIs(t, err, c.want)
			require.NotContains(t, err.Error(), "\n")
			require.Contains(t, err.Error(), c.msg)
		})
	}
}

// fakeTool puts an executable script named name first on PATH.
func fakeTool(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755))
	t.Setenv("PATH", dir)
}

func TestToolMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := extract.Extract(context.Background(), extract.KindPDF, readFile(t, "english.pdf"), extract.Options{})
	require.ErrorIs(t, err, extract.ErrToolMissing)
	require.Equal(t, "pdftotext not found; install poppler-utils (apt install poppler-utils)", err.Error())
}

func TestToolTimeoutAndCrash(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no /bin/sh for the stand-in tool")
	}
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	fakeTool(t, "pdftotext", "if [ \"$1\" = -v ]; then echo 'pdftotext version 0.0.1' >&2; exit 0; fi\nexec "+sleep+" 5\n")
	_, err = extract.Extract(context.Background(), extract.KindPDF, readFile(t, "english.pdf"), extract.Options{Timeout: 300 * time.Millisecond})
	require.ErrorIs(t, err, extract.ErrToolFailed)
	require.Contains(t, err.Error(), "pdftotext took longer than 300ms (Timeout)")

	fakeTool(t, "pdftotext", "if [ \"$1\" = -v ]; then echo 'pdftotext version 0.0.1' >&2; exit 0; fi\necho 'Internal Error: boom' >&2\nexit 99\n")
	_, err = extract.Extract(context.Background(), extract.KindPDF, readFile(t, "english.pdf"), extract.Options{})
	require.ErrorIs(t, err, extract.ErrToolFailed)
	require.Equal(t, "pdftotext failed (exit status 99): Internal Error: boom", err.Error())

	fakeTool(t, "pdftotext", "if [ \"$1\" = -v ]; then echo 'pdftotext version 0.0.1' >&2; exit 0; fi\nprintf 'bad \\377 text'\n")
	_, err = extract.Extract(context.Background(), extract.KindPDF, readFile(t, "english.pdf"), extract.Options{})
	require.ErrorIs(t, err, extract.ErrToolFailed)
	require.Contains(t, err.Error(), "invalid UTF-8")
}

func TestOCR(t *testing.T) {
	needTools(t, "pdftotext", "pdftoppm", "tesseract")
	needLangs(t, "eng", "ara")
	data := readFile(t, "scan.pdf")
	parts, err := extract.Extract(context.Background(), extract.KindPDF, data, extract.Options{OCR: true})
	require.NoError(t, err)
	require.Len(t, parts, 1)
	tool := parts[0].Tool
	require.Equal(t, "tesseract", tool.Name)
	require.Regexp(t, `^\d+\.\d+`, tool.Version)
	require.Regexp(t, `^pdftoppm \d+\.\d+\.\d+ -r 300 -gray -png$`, tool.Options[0])
	require.Equal(t, []string{"-l", "ara+eng", "--psm", "3", "-c", "page_separator=", "OMP_THREAD_LIMIT=1", "chronicle-postprocess=1"}, tool.Options[1:])
	text := string(parts[0].Text)
	// With ara+eng, tesseract 5.3.0 reads "Invoice 42" as "Invoice 2"
	// (eng alone reads it right); the rest of the page is exact.
	require.Contains(t, text, "Invoice")
	require.Contains(t, text, "Alice paid Bob 1,200 EUR on 2 March 2026.\n")
	require.Contains(t, text, "Second paragraph: the balance is zero.\n")
	again, err := extract.Extract(context.Background(), extract.KindPDF, data, extract.Options{OCR: true})
	require.NoError(t, err)
	require.Equal(t, parts, again, "OCR is deterministic for one tesseract version")
}

func TestContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := extract.Extract(ctx, extract.KindHTML, []byte("<p>x</p>"), extract.Options{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestErrorMessages(t *testing.T) {
	require.Equal(t, "attachment invoice.pdf: the PDF is encrypted", (&extract.Error{Part: "invoice.pdf", Err: extract.ErrEncrypted}).Error())
	require.Equal(t, "message-0002: no text layer; OCR not run (use --ocr)", (&extract.Error{Part: "message-0002", Err: extract.ErrNoTextLayer}).Error())
	require.Equal(t, "the PDF is encrypted", (&extract.Error{Err: extract.ErrEncrypted}).Error())
	require.Equal(t, "pdftotext said: x", (&extract.Error{Err: errors.New("pdftotext said: x\nmore\n")}).Error())
}

// TestMailBodyCharsets: the charset rules of the body, one case each.
func TestMailBodyCharsets(t *testing.T) {
	head := "From: a@x\nTo: b@x\nMIME-Version: 1.0\n"
	cases := []struct {
		name, msg, want string
	}{
		{"no content-type, UTF-8", head + "\ncaf\xc3\xa9\n", "caf\u00e9"},
		{"us-ascii declared, 8-bit read as windows-1252", head + "Content-Type: text/plain; charset=us-ascii\n\ncaf\xe9 \x80\n", "caf\u00e9 \u20ac"},
		{"windows-1256", head + "Content-Type: text/plain; charset=windows-1256\n\n\xe3\xd1\xcd\xc8\xc7\n", "مرحبا"},
		{"base64 UTF-8", head + "Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n2YXYsdit2KjYpw==\n", "مرحبا"},
		{"html body charset from meta", head + "Content-Type: text/html\n\n<html><head><meta charset=\"windows-1256\"></head><body><p>\xe3\xd1\xcd\xc8\xc7</p></body></html>\n", "مرحبا"},
		{"CRLF and CR", head + "\r\nline one\r\nline two\rline three\r\n\r\n\r\n", "line one\nline two\nline three"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parts, err := extract.Extract(context.Background(), extract.KindEmail, []byte(c.msg), extract.Options{})
			require.NoError(t, err)
			require.Equal(t, "From: a@x\nTo: b@x\n\n"+c.want+"\n", string(parts[0].Text))
		})
	}
}
