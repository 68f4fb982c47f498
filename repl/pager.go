package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/casper-chronicle/chronicle/repl/termtext"
	"github.com/chzyer/readline"
)

// pagerCommand is $PAGER, or "" when unset.
func pagerCommand() string { return strings.TrimSpace(os.Getenv("PAGER")) }

// needsPager reports whether out is taller than a terminal of height rows
// (one row stays for the prompt).
func needsPager(out []byte, width, height int) bool {
	return height > 0 && termtext.ScreenRows(out, width) > height-1
}

// page shows out: through `sh -c "$PAGER"` when pager is set and out is
// taller than the terminal, directly otherwise. A pager that cannot run
// (exit 126 or 127) falls back to printing out.
func page(out []byte, pager string, w, errw io.Writer, width, height int) {
	if pager == "" || !needsPager(out, width, height) {
		w.Write(out)
		return
	}
	cmd := exec.Command("/bin/sh", "-c", pager)
	var env []string
	out, env = pagerColour(out, pager)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(out), w, errw
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() == 126 || exit.ExitCode() == 127) {
		fmt.Fprintf(errw, "chronicle: $PAGER %q did not run (%v); showing the output directly\n", pager, err)
		w.Write(out)
	}
}

// terminalSize is the width and height of the terminal on stdout.
func terminalSize() (int, int) {
	w, h, err := readline.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		return 0, 0
	}
	return w, h
}

// pagerColour decides what the pager gets: colour only when it shows it.
// less shows colour escapes with -R: when $LESS is unset the pager runs
// with LESS=R (the convention git and systemd follow), when $LESS already
// has R (or r) the colour is kept; any other pager, or a less told
// otherwise, gets the output with its colour stripped, so escapes never
// reach the screen as text. env is what to add to the pager's environment.
func pagerColour(out []byte, pager string) (_ []byte, env []string) {
	less, set := os.LookupEnv("LESS")
	if isLess(pager) {
		if !set {
			return out, []string{"LESS=R"}
		}
		if strings.ContainsAny(less, "Rr") {
			return out, nil
		}
	}
	return termtext.StripColour(out), nil
}

// isLess reports whether the pager command runs less (its first word,
// path and arguments aside: `less`, `/usr/bin/less -S`).
func isLess(pager string) bool {
	fields := strings.Fields(pager)
	return len(fields) > 0 && filepath.Base(fields[0]) == "less"
}
