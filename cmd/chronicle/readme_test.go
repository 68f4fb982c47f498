package main

// The README replay: every ```console block of README.md is run, command
// by command, in one shell, in a copy of the repository after `make run`
// (as a new user would after cloning), and each command's output must be
// the one the README shows. Regenerate the README's outputs with
//
//	go test ./cmd/chronicle -run TestReadme -args -rewrite
//
// (review the diff: `…` elisions of a command whose output changed are
// replaced by its whole output).
//
// The convention: in a ```console block a line starting with "$ " is a
// command (run in bash with stdin from /dev/null unless it redirects it,
// stderr merged into stdout); the lines up to the next command are its
// output. In expected output a line that is only "…" stands for any
// number of lines and "…" inside a line for any text. Timestamps, the
// temporary directories of mktemp and durations are normalised on both
// sides; the archive's clock is SOURCE_DATE_EPOCH (import times, and with
// them store digests and receipt IDs, are those of a fixed instant).

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of README.md's console blocks")

// guides are the README and the guides it lists, in the order their
// examples run: later examples build on the archive earlier ones left.
var guides = []string{
	"README.md",
	"repl/GUIDE.md",
	"engine/claimcheck/README.md",
	"API.md",
	"repl/mcpserver/README.md",
	"repl/web/README.md",
	"db/RELIABILITY.md",
	"cmd/benchreal/PERFORMANCE.md",
	"repl/REPL.md",
	"cmd/casper-chronicle/README.md",
}

// guidePath is where guide g is from this package's directory.
func guidePath(g string) string { return filepath.Join("..", "..", filepath.FromSlash(g)) }

// replacement is a rewritten range of one guide's lines.
type replacement struct {
	from, to int
	with     []string
}

// example is one command of a console block and its expected output.
type example struct {
	line     int      // 1-based README line of the command
	command  string   // without "$ "
	expected []string // the output lines
}

// readmeExamples extracts the console blocks' commands in order.
func readmeExamples(text string) []example {
	var out []example
	in := false
	for i, l := range strings.Split(text, "\n") {
		switch {
		case !in && l == "```console":
			in = true
		case in && l == "```":
			in = false
		case in && strings.HasPrefix(l, "$ "):
			out = append(out, example{line: i + 1, command: strings.TrimPrefix(l, "$ ")})
		case in && len(out) > 0:
			out[len(out)-1].expected = append(out[len(out)-1].expected, l)
		}
	}
	return out
}

var (
	timestamp = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	tempDir   = regexp.MustCompile(`/tmp/[^\s:'"]*`)
	duration  = regexp.MustCompile(`\b\d+(\.\d+)? ?(ns|µs|ms|s)\b`) // 1.5s, 0.7 ms
)

// normalise replaces what varies from run to run.
func normalise(s string) string {
	s = timestamp.ReplaceAllString(s, "TIME")
	s = tempDir.ReplaceAllString(s, "/tmp/TMP")
	return duration.ReplaceAllString(s, "DURATION")
}

// expectation is the pattern a command's normalised output must match.
func expectation(lines []string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for _, l := range lines {
		if l == "…" {
			b.WriteString(`(?:[^\n]*\n)*?`)
			continue
		}
		parts := strings.Split(normalise(l), "…")
		for i, p := range parts {
			if i > 0 {
				b.WriteString(`[^\n]*?`)
			}
			b.WriteString(regexp.QuoteMeta(p))
		}
		b.WriteString(`\n`)
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// shell is one bash process the examples run in, so that cd and
// variables carry from one command to the next as in a terminal.
type shell struct {
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

const endMark = "__README_COMMAND_DONE__"

func startShell(t *testing.T, dir string, env []string) *shell {
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Dir, cmd.Env = dir, env
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start())
	w.Close()
	sh := &shell{in: in, out: bufio.NewReader(r), cmd: cmd}
	t.Cleanup(func() { in.Close(); cmd.Wait(); r.Close() })
	return sh
}

// run runs one command line and returns what it printed.
func (sh *shell) run(t *testing.T, command string) string {
	// The status is kept for the next line's $? (`echo $?` after a
	// failing example prints its code, not printf's).
	_, err := fmt.Fprintf(sh.in, "{ %s\n} </dev/null 2>&1; readme_rc=$?; printf '\\n%s %%d\\n' $readme_rc; (exit $readme_rc)\n", command, endMark)
	require.NoError(t, err)
	var b strings.Builder
	done := make(chan error, 1)
	go func() {
		for {
			l, err := sh.out.ReadString('\n')
			if err != nil {
				done <- fmt.Errorf("the shell ended: %v (output so far %q)", err, b.String())
				return
			}
			if strings.HasPrefix(l, endMark+" ") {
				done <- nil
				return
			}
			b.WriteString(l)
		}
	}()
	select {
	case err := <-done:
		require.NoError(t, err, command)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s: no end after 60s", command)
	}
	return strings.TrimSuffix(b.String(), "\n") // the newline before the mark
}

// repoCopy copies the repository's files (tracked and untracked, not
// ignored: the state a clone of this tree would have) into a new
// directory.
func repoCopy(t *testing.T) string {
	dst := filepath.Join(t.TempDir(), "chronicle")
	out, err := exec.Command("git", "-C", "../..", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err)
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join("../..", name)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or not a file
		}
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(dst, filepath.Dir(name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dst, name), data, st.Mode().Perm()))
	}
	return dst
}

// copyFile copies a file (the archive snapshot of make run).
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// TestReadme replays the console blocks of the README and its guides, in
// order, after `make run`, then their REPL recordings.
func TestReadme(t *testing.T) {
	for _, tool := range []string{"bash", "make", "git"} {
		_, err := exec.LookPath(tool)
		require.NoError(t, err, "the README replay needs %s", tool)
	}
	raws := map[string]string{}
	total := 0
	for _, g := range guides {
		raw, err := os.ReadFile(guidePath(g))
		require.NoError(t, err)
		raws[g] = string(raw)
		total += len(readmeExamples(string(raw)))
	}
	require.NotEmpty(t, readmeExamples(raws["README.md"]), "README.md has no ```console blocks")
	require.Positive(t, total)

	dir := repoCopy(t)
	env := append(baseEnv(), "TMPDIR="+t.TempDir())
	env = append(env, "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	mk := exec.Command("make", "-s", "run")
	mk.Dir, mk.Env = dir, env
	out, err := mk.CombinedOutput()
	require.NoError(t, err, "make run:\n%s", out)

	// The REPL recordings open the archive as make run left it.
	made := filepath.Join(t.TempDir(), "make-run.db")
	require.NoError(t, copyFile(filepath.Join(dir, "chronicle.db"), made))

	sh := startShell(t, dir, env)
	replacements := map[string][]replacement{}
	for _, g := range guides {
		for _, e := range readmeExamples(raws[g]) {
			got := sh.run(t, e.command)
			want := expectation(e.expected)
			got = strings.TrimSuffix(got, "\n") // the output's last newline
			norm := normalise(got)
			if got != "" {
				norm += "\n"
			}
			if want.MatchString(norm) {
				continue
			}
			if *rewrite {
				var with []string
				if got != "" {
					with = strings.Split(got, "\n")
				}
				replacements[g] = append(replacements[g], replacement{e.line, e.line + len(e.expected), with})
				continue
			}
			t.Errorf("%s:%d: $ %s\nwant:\n%s\ngot:\n%s", g, e.line, e.command, strings.Join(e.expected, "\n"), got)
		}
	}

	blocks := 0
	_, err = exec.LookPath("tmux")
	require.NoError(t, err, "the README's REPL recordings are replayed in tmux")
	archive := filepath.Join(dir, "chronicle.db")
	require.NoError(t, os.Rename(archive, archive+".console"))
	for _, g := range guides {
		for _, b := range readmeREPLBlocks(raws[g]) {
			blocks++
			require.NotEmpty(t, b.command, "%s:%d: a ```repl block starts with \"$ COMMAND\"", g, b.line)
			require.NoError(t, copyFile(made, archive))
			problems, rewritten := compareREPL(b, replayREPL(t, dir, env, b))
			if len(problems) == 0 {
				continue
			}
			if *rewrite && rewritten != nil {
				replacements[g] = append(replacements[g], replacement{b.line, b.line + len(b.screen), rewritten})
				continue
			}
			t.Error(g + ": " + strings.Join(problems, "\n"))
		}
	}
	require.Positive(t, blocks, "no ```repl blocks in the guides")
	require.NoError(t, os.Rename(archive+".console", archive))
	for g, rs := range replacements {
		slices.SortFunc(rs, func(a, b replacement) int { return a.from - b.from })
		lines := strings.Split(raws[g], "\n")
		for i := len(rs) - 1; i >= 0; i-- {
			r := rs[i]
			lines = append(lines[:r.from], append(r.with, lines[r.to:]...)...)
		}
		require.NoError(t, os.WriteFile(guidePath(g), []byte(strings.Join(lines, "\n")), 0o644))
		t.Logf("rewrote the output of %d commands in %s", len(rs), g)
	}
}
