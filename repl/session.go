package repl

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
)

// Main is the whole `chronicle` program: a command line runs one command
// (Exec); no command starts a session on the archive (the REPL when stdin
// is a terminal, after the init file; else a script read from stdin); -c
// runs one line of the session language and -f FILE the lines of a
// script, as often as given and in the order given (as psql does).
//
//	chronicle [--db PATH] COMMAND [ARGS...]
//	chronicle [--db PATH] [--json|--text] [--bail] [--no-init]   (REPL or script on stdin)
//	chronicle [--db PATH] [--json|--text] [--bail] (-c 'LINE' | -f FILE)...
func Main(args []string) int {
	db.WatchStack() // the CLI owns its process (db/stackwatch.go)
	env := NewEnv()
	if len(args) > 0 && args[0] == completeCommand { // the shell completion scripts' (completion.go)
		return runComplete(env, args[1:])
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		return Exec(env, []string{"help"})
	}
	opts, ok, err := parseSessionArgs(args)
	if err != nil {
		fmt.Fprintf(env.Stderr, "chronicle: %v\n", err)
		return ExitUsage
	}
	if !ok {
		env.CommandLine = args
		return Exec(env, args)
	}
	env.DBPath = opts.db
	s := newSession(env)
	s.mode = opts.mode
	s.bail = opts.bail
	defer s.closeOutput()
	switch {
	case len(opts.steps) > 0:
		return s.runSteps(opts.steps)
	case isTerminal(os.Stdin):
		return s.interactive(!opts.noInit)
	case !opts.bail && isNullDevice(os.Stdin):
		// Nothing to read (stdin is /dev/null or another non-terminal
		// device): show what chronicle can do, as `chronicle help`.
		return Exec(env, []string{"help"})
	}
	code, _ := s.script(os.Stdin, "", s.direct)
	return code
}

// sessionOpts are the flags that start a session instead of a command.
type sessionOpts struct {
	db     string
	mode   string
	bail   bool
	noInit bool
	steps  []step // -c and -f, in the order given
}

// step is one -c LINE or -f FILE of the command line.
type step struct {
	file bool // -f: arg is a script file ("-" is stdin); else a line
	arg  string
}

// sessionFlags are the flags of the session itself (not of a command):
// the candidates of an unknown leading flag's "did you mean".
var sessionFlags = []string{"-c", "--command", "-f", "--file", "--bail", "--no-init", "--db", "--json", "--text", "--help"}

// parseSessionArgs reads the leading flags. ok is false when a command
// follows (the plain CLI, handled by Exec with the original arguments).
func parseSessionArgs(args []string) (opts sessionOpts, ok bool, err error) {
	opts.mode = modeAuto
	first := "" // the first session-only flag given
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--db":
			if i+1 >= len(args) {
				return opts, false, nil // Exec reports it
			}
			i++
			opts.db = args[i]
			if opts.db == "" {
				return opts, false, usageErrorf("--db needs an archive path")
			}
			continue
		case strings.HasPrefix(a, "--db="):
			opts.db = strings.TrimPrefix(a, "--db=")
			if opts.db == "" {
				return opts, false, usageErrorf("--db needs an archive path")
			}
			continue
		case a == "--json":
			opts.mode = modeJSON
			continue
		case a == "--text":
			opts.mode = modeText
			continue
		case a == "-c" || a == "--command" || a == "-f" || a == "--file":
			if i+1 >= len(args) {
				if a == "-f" || a == "--file" {
					return opts, false, usageErrorf("%s needs a script FILE (- reads stdin)", a)
				}
				return opts, false, usageErrorf("%s needs a command line", a)
			}
			i++
			opts.steps = append(opts.steps, step{file: a == "-f" || a == "--file", arg: args[i]})
		case a == "--bail":
			opts.bail = true
		case a == "--no-init":
			opts.noInit = true
		default:
			if first == "" {
				return opts, false, nil
			}
			return opts, false, usageErrorf("%s starts a session and takes no command (%q); write `chronicle %s` or put it in -c", first, a, a)
		}
		if first == "" {
			first = a
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
	modeAuto  = "auto"  // human view on a terminal, JSON otherwise (the CLI's rule)
	modeText  = "text"  // human view everywhere
	modeJSON  = "json"  // JSON everywhere
	modeTable = "table" // JSON Lines of flat objects as an aligned table, else the human view
)

var modes = []string{modeAuto, modeText, modeJSON, modeTable}

// session runs lines of the session language: every table command, plus
// the session commands of sessionCommands (exit, quit, .mode, .read...).
type session struct {
	env     *Env
	mode    string
	keep    bool // .keep on: answers keep their receipts
	timer   bool // .timer on: each command's wall time on stderr
	bail    bool // --bail: a script (and .read) stops at its first failing line
	output  *os.File
	outName string         // .output FILE as typed; "" is stdout
	reading []string       // the files .read is in, outermost first (absolute)
	inInit  bool           // the init file is running: an exit in it is ignored
	sigint  chan os.Signal // REPL: SIGINT while a command runs
	// interrupted is set when Ctrl-C reached a running command: the
	// script (.read, init) it came from stops after that line.
	interrupted atomic.Bool
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

// errorf prints one session error line, prefixed with the script
// location when there is one (as report does for commands); in JSON mode
// it is one JSON error object, kind from code.
func (s *session) errorf(code int, format string, args ...any) {
	s.errorWith(code, nil, format, args...)
}

// errorWith is errorf naming, in JSON mode, the objects of the error
// ("command": the unknown word, "file": the script that could not be
// opened) and an error kind other than the code's ("kind").
func (s *session) errorWith(code int, objects map[string]string, format string, args ...any) {
	msg := fmt.Sprintf("%s"+format, append([]any{s.env.where()}, args...)...)
	if s.mode != modeJSON {
		fmt.Fprintln(s.env.Stderr, msg)
		return
	}
	// A session in JSON mode reports its own errors as the commands do.
	kind := kindFailure
	switch code {
	case ExitUsage:
		kind = kindUsage
	case ExitInterrupted:
		kind = kindInterrupted
	}
	j := map[string]any{"code": code, "error": kind, "message": msg}
	for k, v := range objects {
		if k == "kind" {
			j["error"] = v
			continue
		}
		j[k] = v
	}
	if s.env.Location != "" {
		j["location"] = s.env.Location
	}
	printJSONLine(s.env.Stderr, j)
}

// line runs one input line and returns its exit code; quit is set by exit,
// quit, .exit, .quit and \q. Blank and comment lines return 0.
func (s *session) line(text string, run runner) (code int, quit bool) {
	if skipped(text) {
		return ExitOK, false
	}
	argv, err := splitSessionLine(text)
	if err != nil {
		s.errorf(ExitUsage, "chronicle: %v", err)
		return ExitUsage, false
	}
	if code, quit, ok := s.sessionCommand(argv, run); ok {
		return code, quit
	}
	return s.tableCommand(argv, run), false
}

// splitSessionLine splits a line with the shell rules, except psql's
// backslash commands (\q, \?), whose backslash Split would take as an
// escape: their first word, and an argument of help starting with a
// backslash, are taken as typed.
func splitSessionLine(text string) ([]string, error) {
	t := strings.TrimLeft(text, " \t")
	if strings.HasPrefix(t, `\`) {
		name, rest, _ := strings.Cut(t, " ")
		args, err := shellwords.Split(rest)
		return append([]string{strings.TrimRight(name, "\t\r")}, args...), err
	}
	if f := strings.Fields(t); len(f) == 2 && (f[0] == "help" || f[0] == ".help") && strings.HasPrefix(f[1], `\`) {
		return f, nil
	}
	return shellwords.Split(text)
}

// tableCommand runs a command of the table (help in a session adds the
// session commands) with the session's mode, keep and output, timed when
// .timer is on.
func (s *session) tableCommand(argv []string, run runner) int {
	if help, ok := helpRequest(argv); ok {
		argv = help // as Exec does, before table mode and the session help see the line
	}
	env := *s.env
	env.JSON = s.mode == modeJSON || s.mode == modeTable
	env.Text = s.mode == modeText
	env.Keep = s.keep
	if s.output != nil {
		env.Stdout, env.StdoutTTY = s.output, false
	}
	start := time.Now()
	code := run(&env, func(env *Env) int {
		if s.mode == modeTable {
			return tableExec(env, argv, s.sessionExec)
		}
		return s.sessionExec(env, argv)
	})
	if s.timer {
		fmt.Fprintf(s.env.Stderr, "time: %s\n", formatElapsed(time.Since(start)))
	}
	return code
}

// sessionExec is Exec plus the session's part of help: `help` ends with
// the session help.
//
// In JSON mode (or with --json) the session commands are help's JSON
// Lines too, each marked "session": JSON output never gets a text line.
func (s *session) sessionExec(env *Env, argv []string) int {
	name := argv[0]
	machine := argvAskedJSON(env, argv)
	code := Exec(env, argv) // help NAME of a session command is runHelp's
	if name == "help" && code == ExitOK && (len(argv) == 1 || machine && len(argv) == 2 && strings.HasPrefix(argv[1], "--")) {
		if !machine {
			writeFitted(env, sessionHelp)
			return code
		}
		for _, n := range sessionNames() {
			printJSONLine(env.Stdout, sessionCommands[n].entry(n))
		}
	}
	return code
}

// formatElapsed is a wall time for .timer: milliseconds with one decimal
// below a second, seconds with two decimals above.
func formatElapsed(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}
