package repl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"chronicle/db"

	"github.com/chzyer/readline"
)

// Exit codes (ARCHITECTURE 5).
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitUnsupported = 3
)

// Env is what a command runs against: the archive path, output streams and
// whether they are terminals.
type Env struct {
	DBPath         string // archive file; "" means $CHRONICLE_DB or ./chronicle.db
	Stdout, Stderr io.Writer
	StdoutTTY      bool // human view instead of JSON
	StderrTTY      bool // progress bars
	JSON           bool // session-wide JSON mode (REPL .mode json)
	Text           bool // session-wide human view (REPL .mode text)
	Interrupted    func() bool
}

// NewEnv returns an Env on the process's streams.
func NewEnv() *Env {
	return &Env{
		Stdout: os.Stdout, Stderr: os.Stderr,
		StdoutTTY: isTerminal(os.Stdout), StderrTTY: isTerminal(os.Stderr),
	}
}

// isTerminal asks the terminal driver (a character device such as
// /dev/null is not a terminal).
func isTerminal(f *os.File) bool {
	return readline.IsTerminal(int(f.Fd()))
}

// archivePath applies --db, then CHRONICLE_DB, then the default.
func (e *Env) archivePath(flag string) string {
	switch {
	case flag != "":
		return flag
	case e.DBPath != "":
		return e.DBPath
	case os.Getenv("CHRONICLE_DB") != "":
		return os.Getenv("CHRONICLE_DB")
	}
	return db.DefaultPath
}

// ctx is one command invocation.
type ctx struct {
	env     *Env
	cmd     *command
	p       *parsed
	archive *db.Archive
}

// json reports whether a result must be printed as JSON: --json or --text
// first, then the session mode, then JSON when stdout is not a terminal.
func (x *ctx) json() bool {
	switch {
	case x.p.has("json"):
		return true
	case x.p.has("text"):
		return false
	case x.env.JSON:
		return true
	case x.env.Text:
		return false
	}
	return !x.env.StdoutTTY
}

func (x *ctx) out() io.Writer { return x.env.Stdout }

// open opens the archive for the command, for writing when write is set.
func (x *ctx) open(write bool) (*db.Archive, error) {
	return x.openArchive(db.Options{ReadOnly: !write})
}

// openExisting opens an archive that must already exist, for writing:
// commands that only add receipts never create an archive from a typo.
func (x *ctx) openExisting() (*db.Archive, error) {
	return x.openArchive(db.Options{MustExist: true})
}

func (x *ctx) openArchive(opts db.Options) (*db.Archive, error) {
	if x.archive != nil {
		return x.archive, nil
	}
	a, err := db.Open(x.env.archivePath(x.p.value("db")), opts)
	if err != nil {
		if errors.Is(err, db.ErrNoArchive) {
			return nil, fmt.Errorf("%w; `chronicle ingest FILE` creates it", err)
		}
		return nil, err
	}
	x.archive = a
	return a, nil
}

// exitStatus is an error that only carries an exit code (verify verdicts):
// the command already printed what the user needs.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// Exec runs one command line and returns its exit code.
func Exec(env *Env, argv []string) int {
	argv = hoistGlobalFlags(argv)
	if len(argv) == 0 {
		return ExitOK
	}
	cmd := lookup(argv[0])
	if cmd == nil {
		fmt.Fprintf(env.Stderr, "chronicle: unknown command %q; `help` lists the commands\n", argv[0])
		return ExitUsage
	}
	err := cmd.exec(env, argv[1:])
	return report(env, cmd.name, err)
}

func (c *command) exec(env *Env, args []string) error {
	p, err := parseArgs(args, c.flags)
	if err != nil {
		return err
	}
	if len(p.args) < c.min || (c.max >= 0 && len(p.args) > c.max) {
		return usageErrorf("usage: %s", strings.TrimSpace(c.name+" "+c.args))
	}
	x := &ctx{env: env, cmd: c, p: p}
	defer func() {
		if x.archive != nil {
			x.archive.Close()
		}
	}()
	return runGuarded(x)
}

// runGuarded runs the command and turns a panic into an error. bbolt does
// not checksum its pages: a damaged page can make it index out of range
// instead of returning an error, and the user must get one line naming the
// archive, not a stack trace (and a REPL session must survive it).
func runGuarded(x *ctx) (err error) {
	// The archive is memory-mapped: a damaged page can point bbolt outside
	// the mapping, which must become a panic (recovered below), not a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			hint := "`chronicle check` lists the problems it can find"
			if x.cmd.name == "check" {
				hint = "its page structure is broken; restore it from a copy"
			}
			err = fmt.Errorf("archive %s is damaged (reading it failed: %v); %s", x.env.archivePath(x.p.value("db")), r, hint)
		}
	}()
	return x.cmd.run(x)
}

// report prints err as one line and maps it to an exit code.
func report(env *Env, name string, err error) int {
	var usage *usageError
	var status exitStatus
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &usage):
		fmt.Fprintf(env.Stderr, "chronicle %s: %v\n", name, err)
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "chronicle %s: %v\n", name, err)
		return ExitFailure
	}
}

// hoistGlobalFlags moves global flags written before the command name
// (`chronicle --db x.db docs`) after it, where the command's parser sees
// them.
func hoistGlobalFlags(argv []string) []string {
	var lead []string
	i := 0
	for i < len(argv) && strings.HasPrefix(argv[i], "--") && argv[i] != "--" {
		lead = append(lead, argv[i])
		if takesValue(argv[i]) && i+1 < len(argv) {
			lead = append(lead, argv[i+1])
			i++
		}
		i++
	}
	if len(lead) == 0 || i >= len(argv) {
		return argv
	}
	return append(append([]string{argv[i]}, lead...), argv[i+1:]...)
}

// takesValue reports whether "--name" (without "=") is a flag of some
// command that takes a value, so that its value is hoisted with it.
func takesValue(arg string) bool {
	name := strings.TrimPrefix(arg, "--")
	if strings.Contains(name, "=") {
		return false
	}
	for _, f := range globalFlags {
		if f.name == name {
			return f.value != ""
		}
	}
	for _, c := range table {
		for _, f := range c.flags {
			if f.name == name {
				return f.value != ""
			}
		}
	}
	return false
}
