package repl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Main is the whole `chronicle` program: a command line runs one command
// (Exec); no command starts a session on the archive (the REPL when stdin
// is a terminal, else a script read from stdin); -c runs one command line
// of the session language.
//
//	chronicle [--db PATH] COMMAND [ARGS...]
//	chronicle [--db PATH] [--json|--text] [--bail]       (REPL or script on stdin)
//	chronicle [--db PATH] [--json|--text] -c 'LINE'
func Main(args []string) int {
	env := NewEnv()
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return Exec(env, []string{"help"})
	}
	opts, ok, err := parseSessionArgs(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "chronicle: %v\n", err)
		return ExitUsage
	}
	if !ok {
		return Exec(env, args)
	}
	env.DBPath = opts.db
	s := newSession(env)
	s.mode = opts.mode
	switch {
	case opts.command != nil:
		code, _ := s.line(*opts.command, s.direct)
		return code
	case isTerminal(os.Stdin):
		return s.interactive()
	case !opts.bail && isNullDevice(os.Stdin):
		// Nothing to read (stdin is /dev/null or another non-terminal
		// device): show what chronicle can do, as `chronicle help`.
		return Exec(env, []string{"help"})
	}
	return s.script(os.Stdin, opts.bail)
}

// sessionOpts are the flags that start a session instead of a command.
type sessionOpts struct {
	db      string
	mode    string
	bail    bool
	command *string
}

// parseSessionArgs reads the leading flags. ok is false when a command
// follows (the plain CLI, handled by Exec with the original arguments).
func parseSessionArgs(args []string) (opts sessionOpts, ok bool, err error) {
	opts.mode = modeAuto
	session := false // a session-only flag was given
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--db" || a == "-c" || a == "--command":
			if i+1 >= len(args) {
				if a == "--db" {
					return opts, false, nil // Exec reports it
				}
				return opts, false, usageErrorf("%s needs a command line", a)
			}
			i++
			if a == "--db" {
				opts.db = args[i]
			} else {
				if opts.command != nil {
					return opts, false, usageErrorf("-c given twice")
				}
				opts.command = &args[i]
				session = true
			}
		case strings.HasPrefix(a, "--db="):
			opts.db = strings.TrimPrefix(a, "--db=")
		case a == "--json":
			opts.mode = modeJSON
		case a == "--text":
			opts.mode = modeText
		case a == "--bail":
			opts.bail = true
			session = true
		default:
			if !session {
				return opts, false, nil
			}
			return opts, false, usageErrorf("-c and --bail start a session and take no command (%q); write `chronicle %s` or put it in -c", a, a)
		}
	}
	return opts, true, nil
}

// isNullDevice reports a stdin that is a device but not a terminal.
func isNullDevice(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && !isTerminal(f)
}

// Session output modes (.mode).
const (
	modeAuto = "auto" // human view on a terminal, JSON otherwise (the CLI's rule)
	modeText = "text" // human view everywhere
	modeJSON = "json" // JSON everywhere
)

// session runs lines of the session language: every table command, plus
// exit, quit and .mode.
type session struct {
	env    *Env
	mode   string
	keep   bool           // .keep on: answers keep their receipts
	sigint chan os.Signal // REPL: SIGINT while a command runs
}

func newSession(env *Env) *session { return &session{env: env, mode: modeAuto} }

// runner runs one table command with its own Env (a copy of the session's).
type runner func(env *Env, run func(*Env) int) int

// direct runs the command in this goroutine (scripts and -c).
func (s *session) direct(env *Env, run func(*Env) int) int { return run(env) }

// skipped reports a line that is not a command: blank, or a comment.
func skipped(line string) bool {
	t := strings.TrimLeft(line, " \t\r\n")
	return t == "" || t[0] == '#'
}

// sessionHelp is appended to `help` in a session.
const sessionHelp = `in this session: .mode [auto|text|json] sets the output of the following commands
  (auto: readable on a terminal, JSON otherwise); .keep [on|off] makes answers keep their
  receipts in the archive (as --keep does; off by default); exit, quit or Ctrl-D leaves;
  Ctrl-C clears the line or interrupts a running command; Tab completes.
`

var sessionCommands = map[string]string{
	".mode": "usage: .mode [auto|text|json]\n  show or set the output mode of the following commands: auto (readable on a terminal, JSON otherwise), text (always readable) or json (always JSON); --json or --text on one command wins\nexample:\n  .mode json\n",
	".keep": "usage: .keep [on|off]\n  show or set whether the following answers (query, claim, find, entity) keep their receipts in the archive, as --keep does; off by default: answering writes nothing\nexample:\n  .keep on\n",
	"exit":  "usage: exit\n  leave the session (also quit, or Ctrl-D on an empty line)\nexample:\n  exit\n",
	"quit":  "usage: quit\n  leave the session (also exit, or Ctrl-D on an empty line)\nexample:\n  quit\n",
}

// line runs one input line and returns its exit code; quit is set by exit
// and quit. Blank and comment lines return 0.
func (s *session) line(text string, run runner) (code int, quit bool) {
	if skipped(text) {
		return ExitOK, false
	}
	argv, err := Split(text)
	if err != nil {
		fmt.Fprintf(s.env.Stderr, "chronicle: %v\n", err)
		return ExitUsage, false
	}
	name := argv[0]
	switch {
	case name == "exit" || name == "quit":
		if len(argv) > 1 {
			fmt.Fprintf(s.env.Stderr, "chronicle %s: usage: %s (it takes no arguments)\n", name, name)
			return ExitUsage, false
		}
		return ExitOK, true
	case name == ".mode":
		return s.setMode(argv[1:]), false
	case name == ".keep":
		return s.setKeep(argv[1:]), false
	case strings.HasPrefix(name, "."):
		fmt.Fprintf(s.env.Stderr, "chronicle: unknown command %q; the session commands are .mode, .keep, exit and quit\n", name)
		return ExitUsage, false
	}
	env := *s.env
	env.JSON = s.mode == modeJSON
	env.Text = s.mode == modeText
	env.Keep = s.keep
	return run(&env, func(env *Env) int {
		if name == "help" && len(argv) == 2 {
			if h, ok := sessionCommands[argv[1]]; ok {
				writeFitted(env, h)
				return ExitOK
			}
		}
		code := Exec(env, argv)
		if name == "help" && len(argv) == 1 && code == ExitOK {
			writeFitted(env, sessionHelp)
		}
		return code
	}), false
}

// setMode implements .mode.
func (s *session) setMode(args []string) int {
	switch {
	case len(args) == 0:
		fmt.Fprintln(s.env.Stdout, s.mode)
		return ExitOK
	case len(args) == 1 && (args[0] == modeAuto || args[0] == modeText || args[0] == modeJSON):
		s.mode = args[0]
		return ExitOK
	}
	fmt.Fprintf(s.env.Stderr, "chronicle .mode: usage: .mode [auto|text|json], got %q\n", strings.Join(args, " "))
	return ExitUsage
}

// setKeep implements .keep.
func (s *session) setKeep(args []string) int {
	switch {
	case len(args) == 0:
		state := "off"
		if s.keep {
			state = "on"
		}
		fmt.Fprintln(s.env.Stdout, state)
		return ExitOK
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		s.keep = args[0] == "on"
		return ExitOK
	}
	fmt.Fprintf(s.env.Stderr, "chronicle .keep: usage: .keep [on|off], got %q\n", strings.Join(args, " "))
	return ExitUsage
}

// script runs the lines of r in order, without prompts. With bail it stops
// at the first failing line and returns its code; otherwise it runs every
// line and returns the code of the last line that failed (0 when none
// did). exit and quit end the script early with the same rule.
func (s *session) script(r io.Reader, bail bool) int {
	br := bufio.NewReader(r)
	last := ExitOK
	for {
		text, err := br.ReadString('\n')
		if text != "" || err == nil {
			text = strings.TrimSuffix(strings.TrimSuffix(text, "\n"), "\r")
			code, quit := s.line(text, s.direct)
			if code != ExitOK {
				last = code
				if bail {
					return code
				}
			}
			if quit {
				return last
			}
		}
		if errors.Is(err, io.EOF) {
			return last
		}
		if err != nil {
			fmt.Fprintf(s.env.Stderr, "chronicle: reading commands: %v\n", err)
			return ExitFailure
		}
	}
}
