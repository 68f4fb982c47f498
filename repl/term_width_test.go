package repl

// Terminal width, colour and pager tests on a real terminal (tmux).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testterm"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
	"github.com/casper-chronicle/chronicle/repl/termtext"

	"github.com/stretchr/testify/require"
)

// startEnv runs chronicle in a new session of the given size with extra
// environment variables set in the pane itself (tmux sets TERM there).
func (tm *term) startEnv(width, height int, env []string, args ...string) {
	tm.t.Helper()
	line := "env"
	for _, kv := range env {
		line += " " + shellwords.Quote(kv)
	}
	line += " " + chronicleBin
	for _, a := range args {
		line += " " + shellwords.Quote(a)
	}
	tm.Start(width, height, line)
}

// joined is the pane with the lines the terminal wrapped joined again
// (capture-pane -J): a line longer than the pane is one Chronicle printed.
func (tm *term) joined(escapes bool) string {
	tm.t.Helper()
	args := []string{"capture-pane", "-p", "-J", "-t", testterm.Session, "-S", "-"}
	if escapes {
		args = append(args, "-e")
	}
	out, err := tm.Tmux(args...)
	require.NoError(tm.t, err, out)
	return out
}

// run types a command line and waits for the prompt after its output
// (the marker is a text its output contains). Until the keys have reached
// the pane, the screen is the one before them: its last line is the
// prompt too, and the text above may hold the marker (the guide says
// "receipt "), so the wait is for a new prompt line below the command's
// own, with the marker between them, in the whole pane's history.
func (tm *term) run(line, marker string) {
	tm.t.Helper()
	before := promptLines(tm.joined(false))
	require.NotEmpty(tm.t, before, "no prompt on the screen before %q", line)
	tm.Type(line)
	tm.Keys("Enter")
	history := func() string { return strings.TrimRight(tm.joined(false), "\n ") }
	tm.waitForIn(history, fmt.Sprintf("the output of %q (holding %q) and the prompt after it", line, marker), func(s string) bool {
		at := promptLines(s)
		if len(at) <= len(before) || lastLine(s)+" " != prompt2 {
			return false
		}
		own := at[len(before)-1] // the line the command was typed on
		_, out, _ := strings.Cut(s[own:at[len(at)-1]], "\n")
		return strings.Contains(out, marker)
	})
}

// promptLines returns the offsets in s of the lines that start with the
// prompt (capture-pane drops a bare prompt's trailing space).
func promptLines(s string) []int {
	var at []int
	bare := strings.TrimRight(prompt2, " ")
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], bare) {
			at = append(at, i)
		}
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return at
}

// TestTerminalWidth: at 60 and 80 columns help, help COMMAND and the
// tables (docs, receipts, stats, entities) print no line wider than the
// terminal; at 60 help's summaries wrap at words onto their own column.
func TestTerminalWidth(t *testing.T) {
	t.Parallel()
	for _, width := range []int{60, 80} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			out, code := w.run("ingest samples\nquery samples/alice-bob-en.txt 'Did Alice repay Bob?' --keep\n")
			require.Equal(t, 0, code, out)
			tm := newTerm(t, w)
			tm.start(width, 200)
			tm.waitPrompt(prompt2, "")
			tm.run("help", "exit codes:")
			tm.run("help receipts", "example:")
			tm.run("help claims", "claims check testdata/claims")
			tm.run("docs", "a4b3c1b7767b")
			tm.run("receipts --verify", "QUERY")
			tm.run("stats", "file_ratio")
			tm.run("entities", "سعود")
			screen := tm.joined(false)
			require.Contains(t, screen, "  version")
			example := false // examples are never wrapped, so may be wider
			for _, line := range strings.Split(strings.TrimRight(screen, "\n "), "\n") {
				line = strings.TrimRight(line, " ")
				if !example {
					require.LessOrEqual(t, termtext.Width(line, 0), width, "line wider than the terminal: %q", line)
				}
				example = line == "example:"
			}
			if width == 60 {
				require.Contains(t, screen, "  receipts [DOC]            list the receipts the archive\n                            issued (of one document; without")
				require.Contains(t, screen, "VALID  ")
			}
		})
	}
}

// TestTerminalNoColor: the find highlight is on by default and off with
// NO_COLOR set (to anything) and on a TERM=dumb terminal.
func TestTerminalNoColor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    []string
		colour bool
	}{
		{"default", nil, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, false},
		{"TERM=dumb", []string{"TERM=dumb"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			out, code := w.run("ingest samples\n")
			require.Equal(t, 0, code, out)
			tm := newTerm(t, w)
			tm.startEnv(120, 40, tc.env)
			tm.waitPrompt(prompt2, "")
			tm.run("find Saud --doc samples/alice-bob-en.txt", "receipt ")
			screen := tm.joined(true)
			i := strings.Index(screen, "MATCHES")
			require.GreaterOrEqual(t, i, 0, screen)
			result := screen[i:]
			require.Equal(t, tc.colour, strings.Contains(result, "\x1b["), "escape codes in the result: %q", result)
		})
	}
}

// TestTerminalPagerColour: an output taller than the terminal goes to
// $PAGER; less (LESS unset) runs with LESS=R and gets the highlight, a
// pager that is not less gets the output without escape codes.
func TestTerminalPagerColour(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pager  string
		colour bool
	}{{"less", true}, {"pager.sh", false}} {
		t.Run(tc.pager, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			out, code := w.run("ingest samples\n")
			require.Equal(t, 0, code, out)
			bin := filepath.Join(w.dir, "bin")
			require.NoError(t, os.MkdirAll(bin, 0o755))
			script := fmt.Sprintf("#!/bin/sh\necho \"LESS=${LESS-unset}\" > %s/pager.env\ncat > %s/pager.out\necho paged\n", w.dir, w.dir)
			require.NoError(t, os.WriteFile(filepath.Join(bin, tc.pager), []byte(script), 0o755))
			tm := newTerm(t, w, "PAGER="+filepath.Join(bin, tc.pager))
			tm.startEnv(120, 6, []string{"-u", "LESS"}) // LESS unset, whatever the test runner has
			tm.waitPrompt(prompt2, "")
			tm.run("find Saud --doc samples/alice-bob-en.txt", "paged")
			paged, err := os.ReadFile(filepath.Join(w.dir, "pager.out"))
			require.NoError(t, err)
			require.Contains(t, string(paged), "MATCHES")
			require.Equal(t, tc.colour, strings.Contains(string(paged), "\x1b[1;7mSaud\x1b[0m"), "%q", paged)
			require.Equal(t, tc.colour, strings.Contains(string(paged), "\x1b"), "%q", paged)
			env, err := os.ReadFile(filepath.Join(w.dir, "pager.env"))
			require.NoError(t, err)
			require.Equal(t, map[bool]string{true: "LESS=R\n", false: "LESS=unset\n"}[tc.colour], string(env))
		})
	}
}
