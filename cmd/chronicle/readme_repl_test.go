package main

// The README's REPL recordings are replayed too, in a real terminal
// (tmux, internal/testterm). The convention: a ```repl block starts with "$ COMMAND", the
// command that starts the REPL, run in the README shell's directory on the
// archive as `make run` left it (the state the README says the REPL opens
// on); then comes the screen. A line that starts with a prompt
// ("chronicle.db (2 docs)> ", with the mode when it is not auto) is typed
// after that prompt, "<Tab>" as the Tab key; the lines up to the next
// prompt line are its output, compared as console outputs are ("…"
// elisions, times and durations normalised). The last typed line must end
// the session. With -rewrite the outputs and prompts are refreshed and
// what is typed is kept as written.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/internal/testterm"

	"github.com/stretchr/testify/require"
)

// promptLine matches a REPL prompt at the start of a screen line.
var promptLine = regexp.MustCompile(`^[^ ]+ \((?:\d+ docs?|busy|unreadable)\)(?: [a-z]+)?> `)

// replBlock is one ```repl block: the launch command and the screen.
type replBlock struct {
	line    int // 1-based README line of "$ COMMAND"
	command string
	screen  []string // the lines after it, up to the closing fence
}

func readmeREPLBlocks(text string) []replBlock {
	var out []replBlock
	var cur *replBlock
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && l == "```repl":
			cur = &replBlock{}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil && cur.line == 0:
			cur.line, cur.command = i+1, strings.TrimPrefix(l, "$ ")
			if !strings.HasPrefix(l, "$ ") {
				cur.command = "" // reported by the test
			}
		case cur != nil:
			cur.screen = append(cur.screen, l)
		}
	}
	return out
}

// segment is the output before the first prompt (typed == ""), or a
// typed line and its output.
type segment struct {
	typed  string // the prompt line as written, "" for the opening output
	at     int    // index in the block's screen of the prompt line
	output []string
}

func segments(screen []string) []segment {
	segs := []segment{{at: -1}}
	for i, l := range screen {
		if promptLine.MatchString(l) {
			segs = append(segs, segment{typed: l, at: i})
			continue
		}
		segs[len(segs)-1].output = append(segs[len(segs)-1].output, l)
	}
	return segs
}

// isPrompt reports a pane whose last line is a prompt with nothing typed.
func isPrompt(h []string) bool {
	n := len(h)
	if n == 0 {
		return false
	}
	m := promptLine.FindString(h[n-1] + " ")
	return m != "" && m == h[n-1]+" "
}

// replayREPL runs one block in a tmux server of its own (testterm) and
// returns the screen it produced.
func replayREPL(t *testing.T, dir string, env []string, b replBlock) []string {
	var keep []string
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "PAGER", "NO_COLOR", "COLUMNS", "XDG_CONFIG_HOME":
			continue
		}
		keep = append(keep, kv)
	}
	// No user init file or history: the session as a new user has it.
	tm := testterm.New(t, dir, append(keep, "XDG_CONFIG_HOME="+t.TempDir()))
	tm.Start(250, 50, b.command)
	_, err := tm.Tmux("set-option", "-t", testterm.Session, "remain-on-exit", "on")
	require.NoError(t, err)
	_, err = tm.Tmux("set-option", "-t", testterm.Session, "history-limit", "5000")
	require.NoError(t, err)
	history := func() string { return strings.Join(tm.History(), "\n") }
	segs := segments(b.screen)
	for i, s := range segs[1:] {
		tm.Poll(fmt.Sprintf("a prompt before README.md:%d", b.line+1+s.at), 20*time.Second, history,
			func(h string) bool { return isPrompt(strings.Split(h, "\n")) })
		typed := s.typed[len(promptLine.FindString(s.typed)):]
		for j, part := range strings.Split(typed, "<Tab>") {
			if j > 0 {
				tm.Keys("Tab")
				time.Sleep(100 * time.Millisecond) // the completion is drawn before more is typed
			}
			if part != "" {
				tm.Type(part)
			}
		}
		tm.Keys("Enter")
		if i == len(segs)-2 { // the last line ends the session
			tm.WaitDead(fmt.Sprintf("the REPL of README.md:%d after its last line", b.line), 20*time.Second)
		}
	}
	h := tm.History()
	// remain-on-exit adds its own line at the end.
	for len(h) > 0 && (strings.HasPrefix(h[len(h)-1], "Pane is dead") || h[len(h)-1] == "") {
		h = h[:len(h)-1]
	}
	return h
}

// compareREPL matches a replayed screen against a block, segment by
// segment. It returns the problems, and the screen the block should have
// (typed lines as written, outputs as replayed) for -rewrite.
func compareREPL(b replBlock, got []string) (problems []string, rewritten []string) {
	want, have := segments(b.screen), segments(got)
	if len(want) != len(have) {
		return []string{fmt.Sprintf("README.md:%d: %d prompts in the README, %d on the screen:\n%s", b.line, len(want)-1, len(have)-1, strings.Join(got, "\n"))}, nil
	}
	for i := range want {
		if i > 0 {
			// A typed line: the screen shows what completion made of <Tab>.
			pattern := expectation([]string{strings.ReplaceAll(want[i].typed, "<Tab>", "…")})
			if !pattern.MatchString(normalise(have[i].typed) + "\n") {
				problems = append(problems, fmt.Sprintf("README.md:%d: typed %q, the screen shows %q", b.line+1+want[i].at, want[i].typed, have[i].typed))
			}
			// Rewritten: the screen's prompt, the README's typing.
			rewritten = append(rewritten, promptLine.FindString(have[i].typed)+want[i].typed[len(promptLine.FindString(want[i].typed)):])
		}
		norm := ""
		if len(have[i].output) > 0 {
			norm = normalise(strings.Join(have[i].output, "\n")) + "\n"
		}
		if !expectation(want[i].output).MatchString(norm) {
			where := b.line
			if i > 0 {
				where += 1 + want[i].at
			}
			problems = append(problems, fmt.Sprintf("README.md:%d: output\nwant:\n%s\ngot:\n%s", where, strings.Join(want[i].output, "\n"), strings.Join(have[i].output, "\n")))
			rewritten = append(rewritten, have[i].output...)
		} else {
			rewritten = append(rewritten, want[i].output...)
		}
	}
	return problems, rewritten
}
