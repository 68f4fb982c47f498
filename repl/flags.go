package repl

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
)

// parsed is a command line split into positional arguments and flags.
type parsed struct {
	args  []string
	flags map[string]string // boolean flags map to "true"
	lists map[string][]string
}

func (p *parsed) has(name string) bool { _, ok := p.flags[name]; return ok }

func (p *parsed) value(name string) string { return p.flags[name] }

// values returns every value of a repeatable flag, in order.
func (p *parsed) values(name string) []string { return p.lists[name] }

func (p *parsed) intValue(name string, def int) (int, error) {
	v, ok := p.flags[name]
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usageErrorf("--%s wants a positive integer, got %q", name, v)
	}
	return n, nil
}

// parseArgs accepts flags before, between and after positional arguments;
// "--" ends flags; "--name=value" and "--name value" both work.
func parseArgs(args []string, specs []commands.Flag) (*parsed, error) {
	p := &parsed{flags: map[string]string{}, lists: map[string][]string{}}
	lookup := func(name string) (commands.Flag, bool) {
		for _, s := range append(slices.Clone(specs), commands.GlobalFlags...) {
			if s.Name == name {
				return s, true
			}
		}
		return commands.Flag{}, false
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.args = append(p.args, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || a == "--" {
			p.args = append(p.args, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		spec, ok := lookup(name)
		if !ok {
			return nil, usageErrorf("unknown flag --%s%s", name, flagSuggestion(name, specs))
		}
		switch {
		case spec.Value == "" && hasVal:
			return nil, usageErrorf("--%s takes no value", name)
		case spec.Value == "":
			val = "true"
		case !hasVal:
			if i+1 >= len(args) {
				return nil, usageErrorf("--%s needs %s", name, spec.Value)
			}
			i++
			val = args[i]
		}
		if _, dup := p.flags[name]; dup && !spec.Repeat {
			return nil, usageErrorf("--%s given twice", name)
		}
		p.flags[name] = val
		p.lists[name] = append(p.lists[name], val)
	}
	return p, nil
}

// usageError is a mistake in the command line itself (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// commandError is an error of a run function of the command table
// (package commands) as the CLI reports it: an ArgError names its
// argument in the JSON error, an InputError is a usage error.
func commandError(err error) error {
	var ae *commands.ArgError
	if errors.As(err, &ae) {
		return withObject(inputError(ae.Err), ae.Object, ae.Value)
	}
	return inputError(err)
}

// inputError makes an argument the shared checks refuse (a db.InputError:
// db/input.go) a usage error (exit 2); other errors stay as they are.
func inputError(err error) error {
	if db.IsInputError(err) {
		return &usageError{msg: err.Error()}
	}
	return err
}

// flagSuggestion is the "did you mean" of an unknown --name: the nearest
// of the command's flags and the global ones.
func flagSuggestion(name string, specs []commands.Flag) string {
	var names []string
	for _, s := range append(slices.Clone(specs), commands.GlobalFlags...) {
		names = append(names, "--"+s.Name)
	}
	return didYouMean("--"+name, names, func(s string) string { return s })
}
