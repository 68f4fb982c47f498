package repl

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/repl/termtext"
)

// helpWidth is the widest help is laid out, even on a wider terminal: a
// reference text reads best in short lines and fits any 80-column window.
const helpWidth = 80

// textWidth is the width the readable views wrap to: the terminal's
// columns when stdout is a terminal, else $COLUMNS when it is a positive
// number (a pipe into a pager or a file has no width of its own), else 0,
// meaning "do not wrap".
func (e *Env) textWidth() int {
	if e.StdoutTTY {
		if w, _ := terminalSize(); w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	return 0
}

// colour reports whether the readable view may use colour (the find
// highlight): only on a terminal, and never with NO_COLOR set to anything
// (no-color.org) or on a TERM=dumb terminal, which shows escapes as text.
func (e *Env) colour() bool {
	return e.StdoutTTY && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
}

// fitted wraps a command whose readable view is a table (or help) so that
// its text lines fit the terminal: the command writes to a termtext.Writer for
// the width (textWidth; help at most helpWidth). JSON output is never
// touched: with --json or the session's JSON mode the command runs as it
// is, and a JSON line is passed through by termtext.FitLine.
func fitted(run func(*invocation) error, maxWidth int) func(*invocation) error {
	return func(x *invocation) error {
		if x.p.has("json") || x.env.JSON {
			return run(x)
		}
		width := x.env.textWidth()
		if maxWidth > 0 && (width == 0 || width > maxWidth) {
			width = maxWidth
		}
		if width == 0 {
			return run(x)
		}
		saved := x.env
		env := *saved
		ww := termtext.NewWriter(env.Stdout, width)
		env.Stdout = ww
		x.env = &env
		err := run(x)
		x.env = saved
		if ferr := ww.Flush(); err == nil {
			err = ferr
		}
		return err
	}
}

// writeFitted writes text to env's stdout fitted to help's width: the
// session adds its own lines to `help`, and they must fit as help does.
func writeFitted(env *Env, text string) {
	ww := termtext.NewWriter(env.Stdout, helpLayoutWidth(env))
	io.WriteString(ww, text)
	ww.Flush()
}
