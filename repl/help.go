package repl

import (
	"fmt"
	"strings"
)

// runHelp lists the commands or explains one.
func runHelp(x *ctx) error {
	w := x.out()
	if len(x.p.args) == 1 {
		c := lookup(x.p.args[0])
		if c == nil {
			return usageErrorf("unknown command %q", x.p.args[0])
		}
		fmt.Fprintf(w, "usage: %s\n  %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
		if c.verbs != nil {
			for _, v := range c.verbs() {
				fmt.Fprintf(w, "  %s\n", v)
			}
		}
		for _, f := range append(c.flags, globalFlags...) {
			name := "--" + f.name
			if f.value != "" {
				name += " " + f.value
			}
			fmt.Fprintf(w, "  %-16s %s\n", name, f.help)
		}
		fmt.Fprintf(w, "example:\n  %s\n", c.example)
		return nil
	}
	fmt.Fprintln(w, "commands (DOC is a document name or at least 8 hex digits of its SHA-256):")
	for _, c := range table {
		fmt.Fprintf(w, "  %-38s %s\n", strings.TrimSpace(c.name+" "+c.args), c.summary)
	}
	fmt.Fprintln(w, "flags may come before or after the arguments; -- ends flags; every command takes --db PATH and --json.")
	writeExitCodes(w) // the table of exec.go
	return nil
}
