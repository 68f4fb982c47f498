package benchtool

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/platform"
)

// MoStrings returns the translations (msgstr) of a GNU .mo file, one per
// line (a translation's own NULs, between plural forms, become newlines);
// nil when b is not a .mo file.
func MoStrings(b []byte) []byte {
	if len(b) < 28 {
		return nil
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch binary.LittleEndian.Uint32(b) {
	case 0x950412de:
	case 0xde120495:
		bo = binary.BigEndian
	default:
		return nil
	}
	n, trans := int(bo.Uint32(b[8:])), int(bo.Uint32(b[16:]))
	var out []byte
	for i := range n {
		e := trans + 8*i
		if e+8 > len(b) {
			break
		}
		l, off := int(bo.Uint32(b[e:])), int(bo.Uint32(b[e+4:]))
		if off+l > len(b) || l == 0 {
			continue
		}
		s := bytes.ReplaceAll(b[off:off+l], []byte{0}, []byte("\n"))
		out = append(append(out, s...), '\n')
	}
	return out
}

// Sanitize returns b as valid UTF-8 without NUL bytes (what chronicle
// ingest accepts): invalid sequences and NULs are dropped. A few man pages
// are still Latin-1; losing their odd bytes keeps the rest of the page.
func Sanitize(b []byte) []byte {
	if utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c != 0 {
				out = append(out, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			i++
			continue
		}
		out = append(out, b[i:i+n]...)
		i += n
	}
	return out
}

// PeakRSS measures a command's peak RSS by running it under a helper: the
// benchmark re-executes itself with OfEnv set (a JSON argument list); the
// helper runs that command with its own stdin, stdout and stderr, writes
// the command's peak RSS in KiB to the file FileEnv names and exits with
// its exit code. It does so before allocating anything, so its own pages,
// which the kernel counts in the child's peak, stay far below a command's.
type PeakRSS struct {
	Name           string // the benchmark, for its messages
	OfEnv, FileEnv string
}

// Helper runs the helper for argvJSON (OfEnv's value) and returns the exit
// code to exit with.
func (p PeakRSS) Helper(argvJSON string) int {
	var argv []string
	if err := json.Unmarshal([]byte(argvJSON), &argv); err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, p.Name+": peak RSS helper: bad arguments", argvJSON)
		return 125
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, p.OfEnv+"=") || strings.HasPrefix(kv, p.FileEnv+"=")
	})
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, p.Name+": peak RSS helper:", err)
		return 125
	}
	if kib, ok := platform.ChildMaxRSS(cmd.ProcessState); ok {
		os.WriteFile(os.Getenv(p.FileEnv), []byte(strconv.FormatInt(kib, 10)+"\n"), 0o600)
	}
	return cmd.ProcessState.ExitCode()
}

// ReadKiB reads the peak RSS the helper wrote to path.
func (p PeakRSS) ReadKiB(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	fs := strings.Fields(string(b))
	if len(fs) == 0 {
		return 0, false
	}
	k, err := strconv.ParseInt(fs[len(fs)-1], 10, 64)
	return k, err == nil
}

// AptInstall installs Debian packages with apt-get (through sudo -n when
// not root), updating the package lists once if the first try fails; a
// failure is logged and the benchmark goes on with what is there.
func AptInstall(logf func(format string, args ...any), pkgs []string) {
	if len(pkgs) == 0 {
		return
	}
	pkgs = slices.Sorted(slices.Values(pkgs))
	apt := []string{"apt-get"}
	if os.Geteuid() != 0 {
		apt = []string{"sudo", "-n", "apt-get"}
	}
	try := func(args ...string) error {
		cmd := exec.Command(apt[0], append(apt[1:], args...)...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		return cmd.Run()
	}
	logf("installing %s (-no-install skips this)", strings.Join(pkgs, " "))
	if try(append([]string{"install", "-y", "-q"}, pkgs...)...) != nil {
		try("update", "-q")
		if err := try(append([]string{"install", "-y", "-q"}, pkgs...)...); err != nil {
			logf("apt-get install failed (%v); going on with what is there", err)
		}
	}
}

// Memstats is what chronicle writes under CHRONICLE_MEMSTATS (see
// cmd/chronicle's doc.go).
type Memstats struct {
	Heap, GoHeld, RSS uint64 // bytes: Go heap peak, Go runtime peak, peak RSS
	OK                bool
}

// ReadMemstats reads a CHRONICLE_MEMSTATS file.
func ReadMemstats(path string) (Memstats, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Memstats{}, err
	}
	m := Memstats{OK: true}
	for _, f := range strings.Fields(string(b)) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return Memstats{}, fmt.Errorf("%s: %q: %w", path, f, err)
		}
		switch k {
		case "heap_peak_bytes":
			m.Heap = n
		case "go_peak_bytes":
			m.GoHeld = n
		case "rss_peak_bytes":
			m.RSS = n
		}
	}
	return m, nil
}

// LinkFiles hard-links (copies, where links fail) files from the pool
// into dst and returns their sizes: a run directory of its own costs no
// copy of a corpus of gigabytes.
func LinkFiles(pool, dst string, files []string) ([]int64, error) {
	var sizes []int64
	for _, f := range files {
		from, to := filepath.Join(pool, f), filepath.Join(dst, f)
		if err := os.Link(from, to); err != nil {
			b, rerr := os.ReadFile(from)
			if rerr != nil {
				return nil, fmt.Errorf("corpus document: %w", rerr)
			}
			if err := os.WriteFile(to, b, 0o644); err != nil {
				return nil, fmt.Errorf("copy corpus document: %w", err)
			}
		}
		st, err := os.Stat(to)
		if err != nil {
			return nil, fmt.Errorf("corpus document: %w", err)
		}
		sizes = append(sizes, st.Size())
	}
	return sizes, nil
}
