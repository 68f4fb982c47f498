package repl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/db/fileio"
)

// sessionHelp is appended to `help` in a session.
const sessionHelp = `in this session (help NAME explains each):
  .help or \?         this help; .help COMMAND is help COMMAND
  .mode [MODE]        auto (readable on a terminal, JSON otherwise), text,
                      json or table (listings as aligned tables)
  .keep [on|off]      answers keep their receipts (as --keep; off by default)
  .timer [on|off]     print each command's wall time on stderr
  .output [FILE]      send the following results to FILE; alone: stdout
  .read FILE          run FILE's lines as a script; errors name FILE:LINE
  exit, quit, .exit, .quit, \q or Ctrl-D leaves;
  Ctrl-C clears the line or interrupts a running command; Tab completes.
`

// sessionDoc explains a session command: what `help NAME` shows, and its
// entry of `help --json`.
type sessionDoc struct {
	args, summary, example string
}

// sessionCommands explains each session command (`help NAME`).
var sessionCommands = map[string]sessionDoc{
	".help":   {"[COMMAND]", "in a session, what help prints: the commands, then the session commands; .help COMMAND is help COMMAND (also \\?)", ".help .read"},
	`\?`:      {"[COMMAND]", "psql's name for .help: the commands, then the session commands", "\\?"},
	".mode":   {"[auto|text|json|table]", "show or set the output mode of the following commands: auto (readable on a terminal, JSON otherwise), text (always readable), json (always JSON) or table (a command's JSON Lines of flat objects, such as docs, entities, receipts and stats, as an aligned table; any other output in the readable view); --json or --text on one command wins", ".mode table"},
	".keep":   {"[on|off]", "show or set whether the following answers (query, claim, find, entity) keep their receipts in the archive, as --keep does; off by default: answering writes nothing", ".keep on"},
	".timer":  {"[on|off]", "show or set whether each command's wall time is printed after it, on stderr (never mixed into the results), as `time: 12.3 ms`", ".timer on"},
	".output": {"[FILE|stdout]", "send the results (stdout) of the following commands to FILE, emptied when .output opens it and closed when the session ends or .output moves on; errors stay on stderr; FILE gets what a redirected stdout gets (in mode auto, answers as JSON and listings readable); .output alone or .output stdout restores stdout", ".output docs.jsonl"},
	".read":   {"FILE", "run FILE's lines as a script inside the session (FILE relative to the current directory; .read may nest, up to 16 deep, but not into a file already being read); a failing line is reported as FILE:LINE; with --bail the script stops there", ".read session.chr"},
	"exit":    {"", "leave the session (also quit, .exit, .quit, \\q, or Ctrl-D on an empty line)", "exit"},
	"quit":    {"", "leave the session (also exit, .exit, .quit, \\q, or Ctrl-D on an empty line)", "quit"},
	".exit":   {"", "leave the session, as exit does", ".exit"},
	".quit":   {"", "leave the session, as quit does", ".quit"},
	`\q`:      {"", "psql's name for quit: leave the session", "\\q"},
}

// text is the help of session command name, as help COMMAND prints a
// command's: usage, summary, example.
func (d sessionDoc) text(name string) string {
	return "usage: " + strings.TrimSpace(name+" "+d.args) + "\n  " + d.summary + "\nexample:\n  " + d.example + "\n"
}

// entry is the command's line of help's JSON Lines, marked session.
func (d sessionDoc) entry(name string) helpEntry {
	return helpEntry{Name: name, Args: d.args, Summary: d.summary, Example: d.example, Flags: []helpFlag{}, Session: true}
}

// sessionNames lists the session commands (completion, "did you mean"
// and the unknown-command message), in the order of the session help;
// TestSessionNames holds it to sessionCommands.
func sessionNames() []string {
	return []string{".help", ".mode", ".keep", ".timer", ".output", ".read", ".exit", ".quit", "exit", "quit", `\?`, `\q`}
}

// isQuit reports the names that leave the session.
func isQuit(name string) bool {
	return name == "exit" || name == "quit" || name == ".exit" || name == ".quit" || name == `\q`
}

// sessionCommand runs argv when it is a session command (ok set); .help
// and \? become help, a table command.
func (s *session) sessionCommand(argv []string, run runner) (code int, quit, ok bool) {
	name, args := argv[0], argv[1:]
	switch {
	case isQuit(name):
		if len(args) > 0 {
			s.errorf(ExitUsage, "chronicle %s: usage: %s (it takes no arguments)", name, name)
			return ExitUsage, false, true
		}
		return ExitOK, true, true
	case name == ".help" || name == `\?`:
		if len(args) > 1 {
			s.errorf(ExitUsage, "chronicle %s: usage: %s [COMMAND]", name, name)
			return ExitUsage, false, true
		}
		return s.tableCommand(append([]string{"help"}, args...), run), false, true
	case name == ".mode":
		return s.setMode(args), false, true
	case name == ".keep":
		return s.setSwitch(".keep", &s.keep, args), false, true
	case name == ".timer":
		return s.setSwitch(".timer", &s.timer, args), false, true
	case name == ".output":
		return s.setOutput(args), false, true
	case name == ".read":
		code, quit := s.read(args, run)
		return code, quit, true
	case strings.HasPrefix(name, ".") || strings.HasPrefix(name, `\`):
		// quoted as typed: %q would double the backslash of \x
		quote := func(n string) string { return `"` + sanitize(n) + `"` }
		s.errorWith(ExitUsage, map[string]string{"command": name}, "chronicle: unknown command %s%s the session commands are %s (`help` lists them)",
			quote(name), orSemicolon(didYouMean(name, sessionNames(), quote)), strings.Join(sessionNames(), " "))
		return ExitUsage, false, true
	}
	return 0, false, false
}

// setMode implements .mode.
func (s *session) setMode(args []string) int {
	switch {
	case len(args) == 0:
		s.printState("mode", s.mode)
		return ExitOK
	case len(args) == 1 && slices.Contains(modes, args[0]):
		s.mode = args[0]
		return ExitOK
	}
	s.errorf(ExitUsage, "chronicle .mode: usage: .mode [%s], got %q", strings.Join(modes, "|"), strings.Join(args, " "))
	return ExitUsage
}

// printState prints a setting that a session command shows: its value
// alone, or in JSON mode {"NAME":"VALUE"} (JSON output never gets a text
// line).
func (s *session) printState(name, value string) {
	if s.mode == modeJSON {
		printJSONLine(s.env.Stdout, map[string]string{name: value})
		return
	}
	fmt.Fprintln(s.env.Stdout, value)
}

// setSwitch implements .keep and .timer: alone it prints the state.
func (s *session) setSwitch(name string, state *bool, args []string) int {
	switch {
	case len(args) == 0:
		s.printState(strings.TrimPrefix(name, "."), onOff(*state))
		return ExitOK
	case len(args) == 1 && (args[0] == "on" || args[0] == "off"):
		*state = args[0] == "on"
		return ExitOK
	}
	s.errorf(ExitUsage, "chronicle %s: usage: %s [on|off], got %q", name, name, strings.Join(args, " "))
	return ExitUsage
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// setOutput implements .output: FILE is emptied (or created, private as
// every file Chronicle writes) when .output opens it, as sqlite3 does; the
// previous file is closed. A FILE that cannot be opened leaves the results
// where they went.
func (s *session) setOutput(args []string) int {
	if len(args) > 1 {
		s.errorf(ExitUsage, "chronicle .output: usage: .output [FILE|stdout], got %q", strings.Join(args, " "))
		return ExitUsage
	}
	if len(args) == 0 || args[0] == "stdout" {
		return s.closeOutput()
	}
	name := args[0]
	f, err := openOutput(name)
	if err != nil {
		s.errorf(ExitFailure, "chronicle .output: cannot open %s for the results: %v; they still go to %s", sanitize(name), err, s.outputLabel())
		return ExitFailure
	}
	if code := s.closeOutput(); code != ExitOK {
		f.Close()
		return code
	}
	s.output, s.outName = f, name
	return ExitOK
}

// openOutput opens name for .output. Anything but a regular file (a FIFO
// would block the session, a directory cannot hold results) is refused,
// except the null device.
func openOutput(name string) (*os.File, error) {
	if name != os.DevNull {
		if err := fileio.CheckTarget(name); err != nil {
			var notRegular *fileio.NotRegularError
			if errors.As(err, &notRegular) {
				return nil, errors.New("it is not a regular file")
			}
			return nil, unwrapPath(err)
		}
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return f, nil
}

// unwrapPath drops the operation and path of a *fs.PathError: the message
// already names the file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *session) outputLabel() string {
	if s.output == nil {
		return "stdout"
	}
	return sanitize(s.outName)
}

// closeOutput closes the .output file, if any: the results go to stdout
// again. A failed close (a full disk) is an error: results were lost.
func (s *session) closeOutput() int {
	if s.output == nil {
		return ExitOK
	}
	f, name := s.output, s.outName
	s.output, s.outName = nil, ""
	if err := f.Close(); err != nil {
		s.errorf(ExitFailure, "chronicle .output: writing %s: %v", sanitize(name), unwrapPath(err))
		return ExitFailure
	}
	return ExitOK
}
