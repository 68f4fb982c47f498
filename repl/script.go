package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"
)

// maxReadDepth bounds nested .read: deep enough for any real layout of
// scripts, shallow enough that a runaway chain of distinct files stops
// with a clear error instead of exhausting file descriptors.
const maxReadDepth = 16

// script runs the lines of r in order, without prompts; name is the file
// they come from ("" is stdin), and each line's errors are prefixed with
// "name:N" ("line N" on stdin). With --bail it stops at the first failing
// line and returns its code; otherwise it runs every line and returns the
// code of the last line that failed (0 when none did). A quitting line
// ends the script (and the session: quit is set) with the same rule.
func (s *session) script(r io.Reader, name string, run runner) (code int, quit bool) {
	saved := s.env.Location
	defer func() { s.env.Location = saved }()
	br := bufio.NewReader(r)
	last := ExitOK
	for n := 1; ; n++ {
		text, err := br.ReadString('\n')
		if text != "" || err == nil {
			s.env.Location = scriptLocation(name, n)
			text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
			code, quit := s.line(text, run)
			if code != ExitOK {
				last = code
				if s.bail {
					return code, false
				}
			}
			if quit && s.inInit {
				// The init file must not end the session it prepares: the
				// line is reported and the lines after it run.
				s.errorf(ExitFailure, "chronicle: %s in the init file is ignored; the session goes on", strings.Fields(text)[0])
				last = ExitFailure
				quit = false
			}
			if quit {
				return last, true
			}
			if s.interrupted.Load() {
				s.errorf(ExitInterrupted, "chronicle: interrupted; the lines after this one did not run")
				return ExitInterrupted, false
			}
		}
		if errors.Is(err, io.EOF) {
			return last, false
		}
		if err != nil {
			s.env.Location = saved
			s.errorf(ExitFailure, "chronicle: reading %s: %v", scriptLabel(name), unwrapPath(err))
			return ExitFailure, false
		}
	}
}

// scriptLocation is the prefix of line n's errors.
func scriptLocation(name string, n int) string {
	if name == "" {
		return "line " + strconv.Itoa(n)
	}
	return sanitize(name) + ":" + strconv.Itoa(n)
}

func scriptLabel(name string) string {
	if name == "" {
		return "stdin"
	}
	return sanitize(name)
}

// read implements .read FILE: the file's lines run as a script in this
// session, with its mode, output and switches (a line of it may change
// them for the lines after). Nested .read is allowed up to maxReadDepth,
// never into a file already being read (that would loop forever).
func (s *session) read(args []string, run runner) (code int, quit bool) {
	if len(args) != 1 {
		s.errorf(ExitUsage, "chronicle .read: usage: .read FILE, got %d arguments", len(args))
		return ExitUsage, false
	}
	name := args[0]
	abs, err := filepath.Abs(name)
	if err != nil {
		s.errorf(ExitFailure, "chronicle .read: %s: %v", sanitize(name), err)
		return ExitFailure, false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	switch {
	case slices.Contains(s.reading, abs):
		s.errorf(ExitFailure, "chronicle .read: %s is already being read (a cycle of .read); it was not read again", sanitize(name))
		return ExitFailure, false
	case len(s.reading) >= maxReadDepth:
		s.errorf(ExitFailure, "chronicle .read: %s: .read nested more than %d deep; it was not read", sanitize(name), maxReadDepth)
		return ExitFailure, false
	}
	f, err := openScript(name)
	if err != nil {
		s.errorWith(ExitFailure, scriptObjects(err), "chronicle .read: %v", err)
		return ExitFailure, false
	}
	defer f.Close()
	s.reading = append(s.reading, abs)
	defer func() { s.reading = s.reading[:len(s.reading)-1] }()
	return s.script(f, name, run)
}

// openScript opens a script file (.read, -f, the init file): a regular
// file only, opened without blocking (a FIFO there would hang the
// session). The error names the file.
func openScript(name string) (*os.File, error) {
	f, err := fileio.OpenRegular(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &scriptError{name, kindNoSuchFile, fmt.Errorf("%s: no such file", sanitize(name))}
		}
		var notRegular *fileio.NotRegularError
		if errors.As(err, &notRegular) {
			return nil, &scriptError{name, kindNotRegular, fmt.Errorf("%s: not a regular file; a script must be one", sanitize(name))}
		}
		return nil, &scriptError{name, kindFailure, fmt.Errorf("%s: %v", sanitize(name), unwrapPath(err))}
	}
	return f, nil
}

// scriptError is a script that could not be opened: its path and the
// error kind of the JSON error.
type scriptError struct {
	path, kind string
	err        error
}

func (e *scriptError) Error() string { return e.err.Error() }

// objects names the script in a session error.
func (e *scriptError) objects() map[string]string {
	return map[string]string{"kind": e.kind, "file": e.path}
}

// scriptObjects is the objects of err when it is a *scriptError.
func scriptObjects(err error) map[string]string {
	var se *scriptError
	if errors.As(err, &se) {
		return se.objects()
	}
	return nil
}

// runSteps runs the -c lines and -f files of the command line in the
// order given. The exit code follows the script rule: the last failure's
// code, or with --bail the first failure's, which stops the rest.
func (s *session) runSteps(steps []step) int {
	last := ExitOK
	for _, st := range steps {
		var code int
		var quit bool
		switch {
		case !st.file:
			code, quit = s.line(st.arg, s.direct)
		case st.arg == "-":
			code, quit = s.script(os.Stdin, "", s.direct)
		default:
			code, quit = s.scriptFile(st.arg, "-f")
		}
		if code != ExitOK {
			last = code
			if s.bail {
				return code
			}
		}
		if quit {
			break
		}
	}
	return last
}

// scriptFile runs the script at path (-f); flag names the source in the
// error when it cannot be opened.
func (s *session) scriptFile(path, flag string) (int, bool) {
	f, err := openScript(path)
	if err != nil {
		s.errorWith(ExitFailure, scriptObjects(err), "chronicle %s: %v", flag, err)
		return ExitFailure, false
	}
	defer f.Close()
	return s.script(f, path, s.direct)
}

// initPath is the init file: chronicle/init in the configuration
// directory, beside the history.
func initPath() (string, error) {
	dir, err := configDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "init"), nil
}

// runInit runs the init file before the REPL's first prompt, when there is
// one. Its failing lines are reported as INITPATH:LINE and do not stop the
// REPL (nor does --bail: a mistake in the init file must not lock the
// user out of the session); an exit in it is ignored for the same reason.
func (s *session) runInit(run runner) {
	path, err := initPath()
	if err != nil {
		return // no config directory: no init file either
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return
	}
	f, err := openScript(path)
	if err != nil {
		s.errorWith(ExitFailure, scriptObjects(err), "chronicle: init file %v (skipped)", err)
		return
	}
	defer f.Close()
	bail := s.bail
	s.bail, s.inInit = false, true
	defer func() { s.bail, s.inInit = bail, false }()
	s.script(f, path, run)
}
