package repl

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/repl/termtext"
)

// Help's layout: synopses up to helpNameWidth columns share a line with
// their summary, which starts at helpSummaryCol; a longer synopsis, or a
// terminal too narrow to leave helpMinSummary columns for the summary,
// puts the summary on the next line, indented by helpStackIndent.
const (
	helpNameWidth   = 24
	helpSummaryCol  = 2 + helpNameWidth + 2
	helpMinSummary  = 30
	helpStackIndent = 6
	helpFlagWidth   = 16
)

// runHelp lists the commands or explains one; with --json it prints the
// command table as JSON Lines instead.
func runHelp(x *invocation) error {
	w := x.out()
	var c *command
	if len(x.p.args) == 1 {
		name := x.p.args[0]
		if d, ok := sessionCommands[name]; ok {
			return sessionCommandHelp(x, name, d)
		}
		if c = lookup(name); c == nil {
			return usageErrorf("unknown command %q%s", name, didYouMean(name, helpNames(), strconv.Quote))
		}
	}
	if x.p.has("json") || x.env.JSON {
		return helpJSON(w, c)
	}
	width := helpLayoutWidth(x.env)
	if c != nil {
		commandHelp(w, c, width)
		return nil
	}
	fmt.Fprintln(w, wrapText("commands (DOC is a document name or at least 8 hex digits of its SHA-256):", width, 0))
	for _, c := range table {
		helpItem(w, strings.TrimSpace(c.name+" "+c.args), c.summary, width)
	}
	fmt.Fprintln(w, wrapText("flags may come before or after the arguments; -- ends flags; every command takes --db PATH, --wait DURATION, --json and --text.", width, 0))
	fmt.Fprintln(w, wrapText("COMMAND --help (or -h) is help COMMAND.", width, 0))
	for _, line := range exitCodesLines() {
		fmt.Fprintln(w, wrapText(line, width, 7))
	}
	return nil
}

// helpFlags ask any command for its help instead of running it.
var helpFlags = []string{"-h", "--help"}

// helpRequest rewrites a command line that asks for a command's help
// (-h or --help before the command name or anywhere after it before
// "--", subcommand verbs included: `claims check --help`) into
// `help COMMAND`, keeping --json and --text, so that both print the same
// text and neither opens the archive; a help flag with no command
// (`chronicle --db x.db --help`, a session line `-h`) is `help`. The rest of the line is ignored: asking for help
// never fails on a flag or an argument count. ok is false for any other
// line, and for a first word that names no command (Exec reports it). A
// literal -h is an argument after "--": `find -- -h`.
func helpRequest(argv []string) (help []string, ok bool) {
	// before the command name too (`chronicle -h find`, `chronicle --db
	// x.db --help find`), among the global flags hoistGlobalFlags moves
	var lead []string
	i := 0
	for ; i < len(argv) && strings.HasPrefix(argv[i], "-") && argv[i] != "--"; i++ {
		if slices.Contains(helpFlags, argv[i]) {
			ok = true
			continue
		}
		lead = append(lead, argv[i])
		if takesValue(argv[i]) && i+1 < len(argv) {
			i++
			lead = append(lead, argv[i])
		}
	}
	if ok && i == len(argv) {
		return append([]string{"help"}, lead...), true
	}
	argv = hoistGlobalFlags(append(lead, argv[i:]...))
	if len(argv) == 0 || lookup(argv[0]) == nil {
		return nil, false
	}
	var output []string
	for _, a := range argv[1:] {
		if a == "--" {
			break
		}
		switch {
		case slices.Contains(helpFlags, a):
			ok = true
		case a == "--json" || a == "--text":
			output = append(output, a)
		}
	}
	if !ok {
		return nil, false
	}
	return append([]string{"help", lookup(argv[0]).name}, output...), true
}

// sessionCommandHelp explains a session command (.mode, \q), at the CLI
// and in a session alike (the README's "help NAME explains each"): its
// text fitted to the terminal, or its JSON line with --json or in JSON
// mode.
func sessionCommandHelp(x *invocation, name string, d sessionDoc) error {
	if x.askedJSON() {
		printJSONLine(x.out(), d.entry(name))
		return nil
	}
	writeFitted(x.env, d.text(name))
	return nil
}

// helpNames are the names `help NAME` explains: the commands, then the
// session commands (the candidates of its "did you mean").
func helpNames() []string {
	return append(Names(), sessionNames()...)
}

// helpLayoutWidth is the width help is laid out for: the terminal's (or
// $COLUMNS), at most helpWidth; helpWidth when unknown. The termtext.Writer
// the command runs behind (fitted) wraps any other line to the same width.
func helpLayoutWidth(env *Env) int {
	if w := env.textWidth(); w > 0 && w < helpWidth {
		return max(w, termtext.MinWrap)
	}
	return helpWidth
}

// commandHelp explains one command: usage, summary, verbs, flags, example.
func commandHelp(w io.Writer, c *command, width int) {
	fmt.Fprintln(w, wrapText("usage: "+strings.TrimSpace(c.name+" "+c.args), width, 7))
	fmt.Fprintln(w, wrapText("  "+c.summary, width, 2))
	if c.verbs != nil {
		for _, v := range c.verbs() {
			fmt.Fprintln(w, wrapText("  "+v, width, 4))
		}
	}
	// -h/--help is no flag of the table (helpRequest takes it before any
	// command runs), but it is one to a reader of this help.
	helpFlag := commands.Flag{Name: "help", Help: "print this help"}
	for _, f := range append(c.spec.FlagsOf(), helpFlag) {
		name := "--" + f.Name
		if f.Value != "" {
			name += " " + f.Value
		}
		if f.Name == helpFlag.Name {
			name = "-h, --help"
		}
		col := 2 + helpFlagWidth + 1
		if width-col < helpMinSummary {
			fmt.Fprintln(w, "  "+name)
			fmt.Fprintln(w, wrapText(strings.Repeat(" ", helpStackIndent)+f.Help, width, helpStackIndent))
			continue
		}
		fmt.Fprintln(w, wrapText(fmt.Sprintf("  %-*s %s", helpFlagWidth, name, f.Help), width, col))
	}
	fmt.Fprintf(w, "example:\n  %s\n", c.example)
}

// helpItem prints one command of the list: its synopsis and its summary.
func helpItem(w io.Writer, synopsis, summary string, width int) {
	if len(synopsis) > helpNameWidth || width-helpSummaryCol < helpMinSummary {
		fmt.Fprintln(w, "  "+synopsis)
		indent := helpSummaryCol
		if width-helpSummaryCol < helpMinSummary {
			indent = helpStackIndent
		}
		fmt.Fprintln(w, wrapText(strings.Repeat(" ", indent)+summary, width, indent))
		return
	}
	fmt.Fprintln(w, wrapText(fmt.Sprintf("  %-*s  %s", helpNameWidth, synopsis, summary), width, helpSummaryCol))
}

// wrapText wraps text at spaces to width columns, continuation lines
// indented by indent spaces (a word wider than a line is cut).
func wrapText(text string, width, indent int) string {
	return strings.Join(termtext.FitLineIndent(text, width, indent), "\n")
}

// helpFlag is one flag in `help --json`.
type helpFlag struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	Help   string `json:"help"`
	Global bool   `json:"global,omitempty"`
}

// helpEntry is one command in `help --json`.
type helpEntry struct {
	Name    string     `json:"name"`
	Args    string     `json:"args"`
	Summary string     `json:"summary"`
	Example string     `json:"example"`
	Verbs   []string   `json:"verbs,omitempty"`
	Flags   []helpFlag `json:"flags"`
	Session bool       `json:"session,omitempty"` // a command of the session (REPL, scripts), not of the CLI
}

// helpJSON prints the command table (or one command) as JSON Lines, one
// object per command: what a script or a completion generator needs.
func helpJSON(w io.Writer, only *command) error {
	for _, c := range table {
		if only != nil && c != only {
			continue
		}
		e := helpEntry{Name: c.name, Args: c.args, Summary: c.summary, Example: c.example, Flags: []helpFlag{}}
		if c.verbs != nil {
			e.Verbs = c.verbs()
		}
		for _, f := range c.flags {
			e.Flags = append(e.Flags, helpFlag{Name: "--" + f.Name, Value: f.Value, Help: f.Help})
		}
		for _, f := range commands.GlobalFlags {
			e.Flags = append(e.Flags, helpFlag{Name: "--" + f.Name, Value: f.Value, Help: f.Help, Global: true})
		}
		printJSONLine(w, e)
	}
	return nil
}
