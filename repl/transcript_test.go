package repl

// Transcript tests, in the style of cockroachdb/datadriven: each file of
// testdata/transcripts is one session against a fresh archive. A block is
//
//	run [ARGS...]
//	COMMAND LINE
//	...
//	----
//	EXPECTED OUTPUT
//
// The command lines are piped to `chronicle ARGS...` (stdin not a
// terminal) in the session's directory, which holds the sample stories in
// samples/; the expected output is stdout and stderr as they interleave,
// then `[exit N]` when the exit code is not 0. The output ends at the
// first blank line, or, when `----` is doubled, at the next `----` line
// followed by `----`. Blank and # lines between blocks are comments.
// `go test ./repl -run Transcripts -rewrite` rewrites the expected outputs.

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/repl/shellwords"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/transcripts")

// transcriptBlock is one run of the binary.
type transcriptBlock struct {
	line  int      // of the run directive
	args  []string // after run
	input []string // command lines
	want  string
}

// transcript is a file: blocks, and the raw lines around them (kept when
// rewriting).
type transcript struct {
	parts []any // string (a comment or blank line) or *transcriptBlock
}

func parseTranscript(path string) (*transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	tr := &transcript{}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			tr.parts = append(tr.parts, l)
			continue
		}
		directive, rest, _ := strings.Cut(l, " ")
		if directive != "run" {
			return nil, fmt.Errorf("%s:%d: want `run [ARGS]`, got %q", path, i+1, l)
		}
		args, err := shellwords.Split(rest)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		b := &transcriptBlock{line: i + 1, args: args}
		for i++; i < len(lines) && lines[i] != "----"; i++ {
			b.input = append(b.input, lines[i])
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("%s:%d: block without ----", path, b.line)
		}
		var out []string
		if i+1 < len(lines) && lines[i+1] == "----" {
			for i += 2; i < len(lines) && (lines[i] != "----" || i+1 >= len(lines) || lines[i+1] != "----"); i++ {
				out = append(out, lines[i])
			}
			if i >= len(lines) {
				return nil, fmt.Errorf("%s:%d: output without closing ----/----", path, b.line)
			}
			i++ // the second ----; a blank line after it is a comment
		} else {
			for i++; i < len(lines) && lines[i] != ""; i++ {
				out = append(out, lines[i])
			}
		}
		if len(out) > 0 {
			b.want = strings.Join(out, "\n") + "\n"
		}
		tr.parts = append(tr.parts, b)
	}
	return tr, nil
}

// format renders the transcript (for -rewrite).
func (tr *transcript) format() string {
	var b strings.Builder
	for i, p := range tr.parts {
		switch p := p.(type) {
		case string:
			b.WriteString(p + "\n")
		case *transcriptBlock:
			b.WriteString(strings.TrimSpace("run "+quoteAll(p.args)) + "\n")
			for _, l := range p.input {
				b.WriteString(l + "\n")
			}
			if strings.Contains(p.want, "\n\n") || strings.HasPrefix(p.want, "\n") {
				b.WriteString("----\n----\n" + p.want + "----\n----\n")
			} else {
				b.WriteString("----\n" + p.want)
				if i+1 < len(tr.parts) {
					b.WriteString("\n")
				}
			}
		}
	}
	return b.String()
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellwords.Quote(a)
	}
	return strings.Join(q, " ")
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			tr, err := parseTranscript(file)
			require.NoError(t, err)
			w := newWorkspace(t)
			for _, p := range tr.parts {
				b, ok := p.(*transcriptBlock)
				if !ok {
					continue
				}
				got, code := w.run(strings.Join(b.input, "\n")+"\n", b.args...)
				if code != 0 {
					got += fmt.Sprintf("[exit %d]\n", code)
				}
				if *rewrite {
					b.want = got
					continue
				}
				require.Equal(t, b.want, got, "%s:%d: run %s\n%s", file, b.line, quoteAll(b.args), strings.Join(b.input, "\n"))
			}
			if *rewrite {
				require.NoError(t, os.WriteFile(file, []byte(tr.format()), 0o644))
			}
		})
	}
}

// TestTranscriptFormat: parsing and formatting a transcript gives it back.
func TestTranscriptFormat(t *testing.T) {
	text := "# comment\n\nrun --bail\ndocs\n# piped comment\n----\nline 1\n[exit 2]\n\nrun\nhelp\n----\n----\na\n\nb\n----\n----\n\nrun -c 'x y'\n----\n"
	path := filepath.Join(t.TempDir(), "t.txt")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	tr, err := parseTranscript(path)
	require.NoError(t, err)
	var blocks []*transcriptBlock
	for _, p := range tr.parts {
		if b, ok := p.(*transcriptBlock); ok {
			blocks = append(blocks, b)
		}
	}
	require.Len(t, blocks, 3)
	require.Equal(t, []string{"--bail"}, blocks[0].args)
	require.Equal(t, []string{"docs", "# piped comment"}, blocks[0].input)
	require.Equal(t, "line 1\n[exit 2]\n", blocks[0].want)
	require.Equal(t, "a\n\nb\n", blocks[1].want)
	require.Equal(t, []string{"-c", "x y"}, blocks[2].args)
	require.Equal(t, "", blocks[2].want)
	require.Equal(t, text, tr.format())
}
