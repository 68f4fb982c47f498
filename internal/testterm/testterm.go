// Package testterm drives commands on a real terminal for the tests whose
// point is one (the REPL's line editing, completion, pager, progress
// bars, the README's REPL recordings): a tmux server of the test's own
// runs the command in a pane (a pseudo-terminal), keys are sent with
// send-keys and the screen is read back with capture-pane. One place for
// the tmux driver the repl and cmd/chronicle tests used to keep each. It
// is imported by tests only.
package testterm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Session is the name of the tmux session the commands run in.
const Session = "main"

// Term is one tmux server, its socket in a temporary directory of its own.
type Term struct {
	t    testing.TB
	sock string
	dir  string
	env  []string
}

// New makes the tmux server of a test (started by the first session),
// killed with its socket directory at the end of the test. Its commands
// run in dir with env, less the locale and terminal variables, plus
// LANG=C.UTF-8 and TERM=xterm.
func New(t testing.TB, dir string, env []string) *Term {
	t.Helper()
	sockDir, err := os.MkdirTemp("", "chr-tmux-") // short: socket paths have a length limit
	if err != nil {
		t.Fatal(err)
	}
	tm := &Term{t: t, sock: filepath.Join(sockDir, "s"), dir: dir}
	for _, kv := range env {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "LANG", "LC_ALL", "LC_CTYPE", "TERM":
			continue
		}
		tm.env = append(tm.env, kv)
	}
	tm.env = append(tm.env, "LANG=C.UTF-8", "TERM=xterm")
	t.Cleanup(func() {
		tm.Tmux("kill-server")
		os.RemoveAll(sockDir)
	})
	return tm
}

// Tmux runs a tmux command on the server and returns its combined output.
func (tm *Term) Tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-u", "-f", "/dev/null", "-S", tm.sock}, args...)...)
	cmd.Env, cmd.Dir = tm.env, tm.dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Start runs the shell command line in a new session of the given size.
func (tm *Term) Start(width, height int, line string) {
	tm.t.Helper()
	// After a session ends, its server takes a moment to go away: a new
	// session started meanwhile reaches the dying server, which tmux
	// reports as "server exited unexpectedly". Start again once it is gone.
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, err := tm.Tmux("new-session", "-d", "-s", Session, "-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-c", tm.dir, line)
		if err == nil {
			return
		}
		if !strings.Contains(out, "server exited unexpectedly") || time.Now().After(deadline) {
			tm.t.Fatalf("starting %s: %v\n%s", line, err, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Keys sends tmux key names (Enter, Tab, C-c, Up...).
func (tm *Term) Keys(keys ...string) {
	tm.t.Helper()
	if out, err := tm.Tmux(append([]string{"send-keys", "-t", Session}, keys...)...); err != nil {
		tm.t.Fatalf("send-keys %q: %v\n%s", keys, err, out)
	}
}

// Type types text literally.
func (tm *Term) Type(text string) {
	tm.t.Helper()
	if out, err := tm.Tmux("send-keys", "-t", Session, "-l", "--", text); err != nil {
		tm.t.Fatalf("typing %q: %v\n%s", text, err, out)
	}
}

// Screen is the visible pane, trailing blank lines removed.
func (tm *Term) Screen() string {
	out, err := tm.Tmux("capture-pane", "-p", "-t", Session)
	if err != nil {
		return "(no pane: " + strings.TrimSpace(out) + ")"
	}
	return strings.TrimRight(out, "\n ")
}

// History is the whole pane, scrollback included, wrapped lines joined,
// each line without its trailing blanks and the trailing blank lines
// removed.
func (tm *Term) History() []string {
	tm.t.Helper()
	out, err := tm.Tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", Session)
	if err != nil {
		tm.t.Fatalf("capture-pane: %v\n%s", err, out)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Poll captures (every 20 ms, for limit at most) until ok holds of the
// capture, and returns it; past the limit it fails the test with what it
// waited for and the last capture.
func (tm *Term) Poll(what string, limit time.Duration, capture func() string, ok func(string) bool) string {
	tm.t.Helper()
	deadline := time.Now().Add(limit)
	for {
		s := capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("waiting for %s; the screen is:\n%s", what, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitGone waits (limit at most) until the session is gone: its command
// left and the pane closed.
func (tm *Term) WaitGone(what string, limit time.Duration) {
	tm.t.Helper()
	tm.Poll(what+" to end", limit, func() string {
		if _, err := tm.Tmux("has-session", "-t", Session); err != nil {
			return ended
		}
		return tm.Screen()
	}, func(s string) bool { return s == ended })
}

// WaitDead waits (limit at most) until the session's command has left a
// pane kept by remain-on-exit.
func (tm *Term) WaitDead(what string, limit time.Duration) {
	tm.t.Helper()
	tm.Poll(what+" to end", limit, func() string {
		if dead, _ := tm.Tmux("display-message", "-p", "-t", Session, "#{pane_dead}"); strings.TrimSpace(dead) == "1" {
			return ended
		}
		return strings.Join(tm.History(), "\n")
	}, func(s string) bool { return s == ended })
}

// ended is what WaitGone's and WaitDead's captures return once the
// command has left (a screen never holds a NUL).
const ended = "\x00ended"
