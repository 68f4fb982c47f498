package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/db/keys"

	"github.com/chzyer/readline"
)

// Exit codes (repl/GUIDE.md, "Exit codes"). No archive and busy
// follow restic's 10 and 11 (repository does not exist, failed to lock),
// an interrupt the shell's 128+SIGINT.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitUnsupported = 3
	ExitNoArchive   = 10
	ExitBusy        = 11
	ExitInterrupted = 130
)

// ExitCode is one row of the exit code table: the code, a short name for
// help's one-line summary and what it means (help --json, README).
type ExitCode struct {
	Code    int    `json:"code"`
	Short   string `json:"short"`
	Meaning string `json:"meaning"`
}

// ExitCodes is the one table of exit codes; every command exits with one
// of these (README "Exit codes" shows the same table).
var ExitCodes = []ExitCode{
	{ExitOK, "success or VALID", "success; VALID (verify, receipts --verify, claims verify)"},
	{ExitFailure, "failure or INVALID", "failure: a rejected file, a damaged archive, a problem check found; INVALID"},
	{ExitUsage, "usage", "usage: a wrong command line (unknown flag, missing argument, bad value)"},
	{ExitUnsupported, "UNSUPPORTED", "UNSUPPORTED: a receipt whose integrity only can be checked (V1 QUERY)"},
	{ExitNoArchive, "no archive", "no archive at the path (`ingest` creates one; reading never does)"},
	{ExitBusy, "archive busy", "the archive is busy: another process held its lock for all of --wait"},
	{ExitInterrupted, "interrupted", "interrupted (Ctrl-C): ingest, import, check or reindex stopped between documents"},
}

// Env is what a command runs against: the archive path, output streams and
// whether they are terminals.
type Env struct {
	DBPath         string // archive file; "" means $CHRONICLE_DB or ./chronicle.db
	Stdout, Stderr io.Writer
	StdoutTTY      bool // human view instead of JSON
	StderrTTY      bool // progress bars
	JSON           bool // session-wide JSON mode (REPL .mode json)
	Text           bool // session-wide human view (REPL .mode text)
	Keep           bool // session-wide --keep (REPL .keep on)
	// Context, when set, is canceled to interrupt the command (the REPL's
	// Ctrl-C): ingest, import, check and reindex end at their next
	// document boundary with db.ErrInterrupted. Nil in the CLI, where
	// Exec cancels one of its own on Ctrl-C for those commands.
	Context context.Context
	// Location is where the running command line came from in a script
	// ("FILE:LINE", "line N" on stdin), "" for the CLI and the REPL: an
	// error is reported as "LOCATION: chronicle CMD: message".
	Location string
	// CommandLine is the process's own arguments when it runs one command
	// (Main), nil in a session or a script: `ingest` hands it, as it is,
	// to the chronicle-extract beside this binary (ingest_handoff.go).
	CommandLine []string
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

// invocation is one command being run: the session or process it runs in,
// its table entry, its parsed arguments and the archive it opened.
type invocation struct {
	env     *Env
	cmd     *command
	p       *parsed
	archive *db.Archive
	key     *keys.Key // the signing key, once prepareKey loaded it
}

// resultJSON reports whether a result must be printed as JSON: --json or
// --text first, then the session mode, then JSON when stdout is not a
// terminal (askedJSON is the stricter rule of errors and receipts).
func (x *invocation) resultJSON() bool {
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

func (x *invocation) out() io.Writer { return x.env.Stdout }

// open opens the archive for the command, for writing when write is set.
func (x *invocation) open(write bool) (*db.Archive, error) {
	return x.openArchive(db.Options{ReadOnly: !write})
}

// openExisting opens an archive that must already exist, for writing:
// commands that only add receipts never create an archive from a typo.
func (x *invocation) openExisting() (*db.Archive, error) {
	return x.openArchive(db.Options{MustExist: true})
}

func (x *invocation) openArchive(opts db.Options) (*db.Archive, error) {
	if x.archive != nil {
		return x.archive, nil
	}
	wait, err := x.wait()
	if err != nil {
		return nil, err
	}
	opts.Timeout = wait
	// A write signs the log it leaves.
	if !opts.ReadOnly {
		if err := x.loadLogKey(true); err != nil {
			return nil, err
		}
	}
	a, err := db.Open(x.env.archivePath(x.p.value("db")), opts)
	if err != nil {
		if errors.Is(err, db.ErrNoArchive) {
			return nil, fmt.Errorf("%w; `chronicle ingest FILE` creates it", err)
		}
		return nil, err
	}
	if !opts.ReadOnly {
		if err := x.attachLogKey(a, true); err != nil {
			a.Close()
			return nil, err
		}
	}
	x.archive = a
	return a, nil
}

// wait is how long opening waits for another process's lock: --wait,
// then CHRONICLE_WAIT, then db.LockTimeout. A reader waits for a writer's
// commit; a writer for the readers in the archive.
func (x *invocation) wait() (time.Duration, error) {
	v, from := x.p.value("wait"), "--wait"
	if v == "" {
		v, from = os.Getenv("CHRONICLE_WAIT"), "CHRONICLE_WAIT"
	}
	if v == "" {
		return db.LockTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, usageErrorf("%s wants a positive duration such as 500ms, 5s or 2m, got %q", from, v)
	}
	return d, nil
}

// exitStatus is an error that only carries an exit code (verify verdicts):
// the command already printed what the user needs.
type exitStatus int

func (e exitStatus) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// Exec runs one command line and returns its exit code.
func Exec(env *Env, argv []string) int {
	given := argv
	if help, ok := helpRequest(argv); ok {
		argv, given = help, help
	}
	argv = hoistGlobalFlags(argv)
	if len(argv) == 0 {
		return ExitOK
	}
	cmd := lookup(argv[0])
	if cmd == nil {
		word := firstUnknown(given)
		msg := fmt.Sprintf("%schronicle: %s", env.where(), unknownCommand(word))
		if !argvAskedJSON(env, given) {
			fmt.Fprintln(env.Stderr, msg)
			return ExitUsage
		}
		j := map[string]any{"code": ExitUsage, "error": kindUsage, "message": msg}
		if name, ok := strings.CutPrefix(word, "--"); ok {
			j["flag"], _, _ = strings.Cut(name, "=")
		} else {
			j["command"] = word
		}
		if env.Location != "" {
			j["location"] = env.Location
		}
		printJSONLine(env.Stderr, j)
		return ExitUsage
	}
	err := cmd.exec(env, argv[1:])
	return reportAs(env, cmd.name, argvAskedJSON(env, argv[1:]), err)
}

// unknownCommand is the message for a first word that names no command:
// the nearest command names as a suggestion, or, for a flag given
// without a command (`chronicle --bial`), the nearest session flags.
func unknownCommand(name string) string {
	if strings.HasPrefix(name, "-") {
		candidates := slices.Clone(sessionFlags)
		for _, f := range allFlagNames() {
			if !slices.Contains(candidates, "--"+f) {
				candidates = append(candidates, "--"+f)
			}
		}
		return fmt.Sprintf("unknown flag %s%s `chronicle help` lists the commands and their flags",
			sanitize(name), orSemicolon(flagDidYouMean(name, candidates)))
	}
	return fmt.Sprintf("unknown command %q%s `help` lists the commands", name, orSemicolon(didYouMean(name, Names(), strconv.Quote)))
}

// firstUnknown is the word to complain about when argv (as given, before
// hoisting) names no command: the first word that is not a known flag
// (`--db=x --bial`, `--limt 3 find x`) or a known flag's value.
func firstUnknown(argv []string) string {
	for i := 0; i < len(argv); i++ {
		name, _, hasVal := strings.Cut(strings.TrimPrefix(argv[i], "--"), "=")
		if !strings.HasPrefix(argv[i], "--") || !slices.Contains(allFlagNames(), name) {
			return argv[i]
		}
		if takesValue(argv[i]) && !hasVal {
			i++
		}
	}
	return argv[0]
}

// allFlagNames are the names (without dashes) of the global flags and of
// every command's flags.
func allFlagNames() []string {
	var names []string
	for _, f := range commands.GlobalFlags {
		names = append(names, f.Name)
	}
	for _, c := range table {
		for _, f := range c.flags {
			if !slices.Contains(names, f.Name) {
				names = append(names, f.Name)
			}
		}
	}
	return names
}

// orSemicolon is a suggestion ("; did you mean X?"), or the ";" that
// separates the message from what follows when there is none.
func orSemicolon(hint string) string {
	if hint == "" {
		return ";"
	}
	return hint
}

func (c *command) exec(env *Env, args []string) error {
	p, err := parseArgs(args, c.flags)
	if err != nil {
		if f := flagOf(args, c.flags, err); f != "" {
			return withObject(err, "flag", f)
		}
		return err
	}
	if len(p.args) < c.min || (c.max >= 0 && len(p.args) > c.max) {
		return usageErrorf("usage: %s", strings.TrimSpace(c.name+" "+c.args))
	}
	if p.has("db") && p.value("db") == "" {
		return usageErrorf("--db needs an archive path (without it: $CHRONICLE_DB, else ./%s)", db.DefaultPath)
	}
	if interruptible[c.name] && env.Context == nil {
		defer catchInterrupt(env)()
	}
	x := &invocation{env: env, cmd: c, p: p}
	defer func() {
		if x.archive != nil {
			x.archive.Close()
		}
	}()
	return runGuarded(x)
}

// runGuarded runs the command under db.Guard: a panic or fault on a
// damaged page and the damage db finds end as one *db.DamageError naming
// the archive, whose line is printed as it is: the user gets one line, not
// a stack trace, and a REPL session survives it. (A runaway search through
// a looping page tree cannot be survived: the stack watch Main started
// ends the process with the same kind of line.)
// The files named by --receipt and --out are checked before the command
// runs: anything but a regular file there fails at once, before any work
// is done.
func runGuarded(x *invocation) error {
	path := x.env.archivePath(x.p.value("db"))
	err := db.Guard(path, func() error {
		if err := checkOutputFiles(x); err != nil {
			return err
		}
		return x.cmd.run(x)
	})
	return archiveObject(path, checkDamage(x.cmd.name, err))
}

// checkOutputFiles refuses a --receipt FILE or --out ROWS that exists and
// is not a regular file (a FIFO, a directory): write-once would only find
// out after the answer was computed (and, for ingest, kept).
func checkOutputFiles(x *invocation) error {
	for _, flag := range []string{"receipt", "out"} {
		if p := x.p.value(flag); p != "" && p != "-" {
			if err := fileio.CheckTarget(p); err != nil {
				return fmt.Errorf("--%s %w; nothing was done", flag, err)
			}
		}
	}
	return nil
}

// checkDamage gives a page that could not be read while check ran the
// next step check cannot give: check walks every page, so the page it
// could not read is its page structure, which nothing but a copy mends.
func checkDamage(name string, err error) error {
	if d, ok := err.(*db.DamageError); ok && name == "check" && d.Kind == db.PageUnreadable && d.Where == "" {
		c := *d
		c.Next = "its page structure is broken; restore it from a copy"
		return &c
	}
	return err
}

// report prints err as one line and maps it to an exit code.
func report(env *Env, name string, err error) int {
	return reportAs(env, name, env.JSON, err)
}

// reportAs is report with the output chosen: in machine mode the error is
// one JSON object on stderr (errorJSON), else one text line; the exit code
// comes from the table (classify). A quiet status (a verdict the command
// printed) adds no text line.
func reportAs(env *Env, name string, machine bool, err error) int {
	var status exitStatus
	var quiet *statusError
	if err == nil {
		return ExitOK
	}
	if errors.As(err, &status) {
		return int(status)
	}
	code, kind := classify(err)
	switch {
	case machine:
		printJSONLine(env.Stderr, errorJSON(env, name, code, kind, err))
	case errors.As(err, &quiet) && quiet.quiet:
	default:
		fmt.Fprintf(env.Stderr, "%schronicle %s: %v\n", env.where(), name, err)
	}
	return code
}

// archiveObject names the archive in an error about the archive itself
// (missing, busy, damaged, not an archive), for the JSON error.
func archiveObject(path string, err error) error {
	if err == nil {
		return nil
	}
	switch _, kind := classify(err); kind {
	case kindNoArchive, kindBusy, kindDamaged, kindNotArchive, kindNewerSchema, kindNeedsUpgrade, kindProblemsFound, kindInterrupted:
		return withObject(err, "archive", path)
	case kindNotRegular:
		// the archive itself, not a --receipt or --out file
		var d *db.DamageError
		if errors.As(err, &d) {
			return withObject(err, "archive", path)
		}
	}
	return err
}

// flagOf names the flag a parse error is about: the token at which
// parseArgs, given ever longer prefixes of args, first fails as it failed
// on all of them ("" when the error is about no flag).
func flagOf(args []string, specs []commands.Flag, err error) string {
	for k := 1; k <= len(args); k++ {
		if _, perr := parseArgs(args[:k], specs); perr != nil && perr.Error() == err.Error() {
			name, _, _ := strings.Cut(strings.TrimPrefix(args[k-1], "--"), "=")
			if !strings.HasPrefix(args[k-1], "--") {
				return ""
			}
			return name
		}
	}
	return ""
}

// interruptible commands stop at their next document on Ctrl-C.
var interruptible = map[string]bool{"ingest": true, "import": true, "check": true, "reindex": true}

// catchInterrupt makes the first Ctrl-C of the CLI (where no session set
// Env.Context) cancel the command's context, so that it stops at its next
// document, which lands whole or not at all (exit 130); a second Ctrl-C
// ends the process as usual. It returns the function that undoes it.
func catchInterrupt(env *Env) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
			signal.Stop(ch)
		case <-done:
		}
	}()
	env.Context = ctx
	return func() {
		close(done)
		signal.Stop(ch)
		cancel()
		env.Context = nil
	}
}

// context is the command's context: canceled on Ctrl-C (Env.Context),
// never when no one can interrupt the command.
func (x *invocation) context() context.Context {
	if x.env.Context == nil {
		return context.Background()
	}
	return x.env.Context
}

// where is the "LOCATION: " prefix of an error line, "" outside scripts.
func (e *Env) where() string {
	if e.Location == "" {
		return ""
	}
	return e.Location + ": "
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
	for _, f := range commands.GlobalFlags {
		if f.Name == name {
			return f.Value != ""
		}
	}
	for _, c := range table {
		for _, f := range c.flags {
			if f.Name == name {
				return f.Value != ""
			}
		}
	}
	return false
}
