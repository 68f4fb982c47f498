package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/chzyer/readline"
)

// pagerCommand is $PAGER, or "" when unset.
func pagerCommand() string { return strings.TrimSpace(os.Getenv("PAGER")) }

// screenRows counts the terminal rows out takes at the given width
// (wrapped lines take several rows).
func screenRows(out []byte, width int) int {
	if len(out) == 0 {
		return 0
	}
	text := strings.TrimSuffix(string(out), "\n")
	rows := 0
	for _, line := range strings.Split(text, "\n") {
		w := readline.Runes{}.WidthAll([]rune(line))
		if width <= 0 || w <= width {
			rows++
			continue
		}
		rows += (w + width - 1) / width
	}
	return rows
}

// needsPager reports whether out is taller than a terminal of height rows
// (one row stays for the prompt).
func needsPager(out []byte, width, height int) bool {
	return height > 0 && screenRows(out, width) > height-1
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
