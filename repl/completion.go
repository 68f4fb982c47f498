package repl

import (
	"bufio"
	"io"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
)

// Shell completion (`chronicle completion bash|zsh|fish`), as restic,
// kubectl and gh have it: the script is a thin shim that asks the binary
// being completed for the candidates (`chronicle __complete -- WORDS...`),
// and the binary answers with the REPL's own Tab completion (complete.go).
// So the shell and the REPL agree, and a command, flag or argument kind
// added to the table is completed without the script being regenerated:
// nothing about the table is copied into the script to drift.

// completeCommand is the hidden entry point the scripts call. It is not in
// the table: help does not list it and `chronicle __complete` is not a
// command a user types.
const completeCommand = "__complete"

// runCompletion prints the completion script for the shell named.
func runCompletion(x *invocation) error {
	script, ok := completionScripts[x.p.args[0]]
	if !ok {
		return usageErrorf("unknown shell %q; the shells are bash, zsh and fish", sanitize(x.p.args[0]))
	}
	_, err := io.WriteString(x.out(), script)
	return err
}

// runComplete is `chronicle __complete [--] WORDS...`: WORDS are the words
// of the command line after the program name, the last one the word being
// completed (empty after a space), as the shell has them (quotes as
// typed). It prints the candidates that start with that word, one a line;
// a directory ends with "/" and takes no space after it. Errors print
// nothing (a shell shows whatever it is given): a missing archive is not
// created (it is opened read-only) and a busy one is waited for at most
// as long as the REPL's Tab waits (openArchive). The exit is always 0.
func runComplete(env *Env, args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	w := bufio.NewWriter(env.Stdout)
	defer w.Flush()
	for _, c := range shellCandidates(env, args) {
		w.WriteString(c.value + "\n")
	}
	return ExitOK
}

// shellCandidates are the completions of the last of words (the command
// line after the program name), filtered by it as the REPL's Do filters.
func shellCandidates(env *Env, words []string) []candidate {
	if len(words) == 0 {
		words = []string{""}
	}
	before := make([]string, len(words)-1)
	for i, w := range words[:len(words)-1] {
		before[i] = shellWord(w)
	}
	cur := shellWord(words[len(words)-1])
	s := newSession(&Env{DBPath: env.DBPath, Stdout: io.Discard, Stderr: io.Discard})
	// Global flags before the command (`chronicle --db x.db show <Tab>`):
	// the archive is the flag's, and the command is the word after them.
	var cands []candidate
	i := 0
	for ; i < len(before) && strings.HasPrefix(before[i], "--") && before[i] != "--"; i++ {
		name, val, hasVal := strings.Cut(before[i][2:], "=")
		if takesValue("--"+name) && !hasVal {
			if i+1 == len(before) { // cur is its value
				if globalFlag(name).Kind == commands.ArgPath {
					cands = pathCandidates(cur)
				}
				return matching(cands, cur)
			}
			i++
			val = before[i]
		}
		if name == "db" {
			s.env.DBPath = val
		}
	}
	before = before[i:]
	switch {
	case len(before) > 0:
		cands = (&completer{s: s}).candidates(before, cur)
	case strings.HasPrefix(cur, "-"):
		cands = finals(append(slices.Clone(sessionFlags), versionFlag))
	default:
		// the CLI's commands; the session's own (.mode, exit) are no
		// commands of the shell
		cands = finals(Names())
	}
	return matching(cands, cur)
}

// shellWord is a word as the shell passed it with its quoting undone, as
// far as it is typed: `"my fi` is `my fi`.
func shellWord(w string) string {
	sc := shellwords.Scan(w + " ")
	if len(sc.Words) == 1 && !sc.InWord {
		return sc.Words[0]
	}
	if sc = shellwords.Scan(w); sc.InWord {
		return sc.Word
	}
	return w
}

// matching keeps the candidates that continue cur, each once.
func matching(cands []candidate, cur string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, c := range cands {
		if strings.HasPrefix(c.value, cur) && !seen[c.value] {
			seen[c.value] = true
			out = append(out, c)
		}
	}
	return out
}

// completionScripts are the scripts, each calling completeCommand with
// the words up to the cursor. They run the binary that is being completed
// (the command line's first word), so ./bin/chronicle completes with its
// own table.
var completionScripts = map[string]string{
	"bash": `# bash completion for chronicle: source it, e.g. in ~/.bashrc
#   source <(chronicle completion bash)
# or save it as ~/.local/share/bash-completion/completions/chronicle.
# The candidates come from ` + "`chronicle " + completeCommand + "`" + `, the REPL's Tab completion.
_chronicle() {
    local cur cword
    local -a words
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        # bash-completion: keep --db=PATH one word
        _get_comp_words_by_ref -n =: cur words cword
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local c IFS=$'\n'
    local -a out
    out=($(command "${words[0]}" ` + completeCommand + ` -- "${words[@]:1:cword}" 2>/dev/null))
    COMPREPLY=()
    for c in "${out[@]}"; do
        # a directory: no space, the path goes on
        [[ $c == */ ]] && compopt -o nospace 2>/dev/null
        # quote what the shell would split, unless a quote is open
        if [[ $cur == [\"\']* || $c != *[[:space:]\"\'\\\$\;\&\|\<\>\(\)\*\?\[\]\#\!\` + "`" + `]* ]]; then
            COMPREPLY+=("$c")
        else
            COMPREPLY+=("$(printf '%q' "$c")")
        fi
    done
}
complete -F _chronicle chronicle
`,
	"zsh": `#compdef chronicle
# zsh completion for chronicle: source it, e.g. in ~/.zshrc after compinit
#   source <(chronicle completion zsh)
# or save it as _chronicle in a directory of $fpath.
# The candidates come from ` + "`chronicle " + completeCommand + "`" + `, the REPL's Tab completion.
_chronicle() {
    local c
    local -a out finals dirs
    out=("${(@f)$(command ${words[1]} ` + completeCommand + ` -- "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    for c in "${out[@]}"; do
        [[ -z $c ]] && continue
        if [[ $c == */ ]]; then dirs+=("$c"); else finals+=("$c"); fi
    done
    (( ${#finals} )) && compadd -- "${finals[@]}"
    # a directory: no space, the path goes on
    (( ${#dirs} )) && compadd -S '' -- "${dirs[@]}"
    return 0
}
if [[ $funcstack[1] == _chronicle ]]; then
    _chronicle "$@"
else
    compdef _chronicle chronicle
fi
`,
	"fish": `# fish completion for chronicle: source it, e.g. in config.fish
#   chronicle completion fish | source
# or save it as ~/.config/fish/completions/chronicle.fish.
# The candidates come from ` + "`chronicle " + completeCommand + "`" + `, the REPL's Tab completion.
function __chronicle_complete
    set -l tokens (commandline -opc)
    command $tokens[1] ` + completeCommand + ` -- $tokens[2..-1] (commandline -ct) 2>/dev/null
end
complete -c chronicle -f -a '(__chronicle_complete)'
`,
}

// globalFlag is the global flag of that name (the zero Flag when there
// is none).
func globalFlag(name string) commands.Flag {
	for _, f := range commands.GlobalFlags {
		if f.Name == name {
			return f
		}
	}
	return commands.Flag{}
}
