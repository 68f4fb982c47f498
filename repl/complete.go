package repl

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/index"
	"github.com/casper-chronicle/chronicle/repl/shellwords"
)

// completer is the REPL's Tab completion: command names, flags, document
// names and hash prefixes for DOC arguments, entity names for NAME
// arguments, and file paths for ingest, import, verify and export.
type completer struct{ s *session }

// candidate is one completion: the whole word, and whether it is complete
// (a space follows) rather than a directory to descend into.
type candidate struct {
	value string
	final bool
}

// Do implements readline.AutoCompleter: the continuations of the word
// before the cursor, escaped for the quoting in effect, and the length of
// that word as typed.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	head := string(line[:pos])
	sc := shellwords.Scan(head)
	if sc.TrailingBackslash {
		return nil, 0
	}
	cur, raw := "", ""
	if sc.InWord {
		cur, raw = sc.Word, head[sc.WordStart:]
	}
	var out [][]rune
	seen := map[string]bool{}
	for _, cand := range c.candidates(sc.Words, cur) {
		if !strings.HasPrefix(cand.value, cur) || seen[cand.value] {
			continue
		}
		seen[cand.value] = true
		suffix := shellwords.Escape(cand.value[len(cur):], sc.Quote)
		if cand.final {
			if sc.Quote != 0 {
				suffix += string(sc.Quote)
			}
			suffix += " "
		}
		out = append(out, []rune(suffix))
	}
	return out, utf8.RuneCountInString(raw)
}

// candidates lists the possible values of the word after words.
func (c *completer) candidates(words []string, cur string) []candidate {
	if len(words) == 0 {
		return finals(commandNames())
	}
	name := words[0]
	if _, ok := sessionCommands[name]; ok {
		return sessionArgCandidates(name, len(words)-1, cur)
	}
	cmd := lookup(name)
	if cmd == nil {
		return nil
	}
	dbFlag := ""
	idx := 0 // positional arguments before cur
	var valueOf string
	for i := 1; i < len(words); i++ {
		w := words[i]
		if valueOf != "" {
			if valueOf == "db" {
				dbFlag = w
			}
			valueOf = ""
			continue
		}
		if strings.HasPrefix(w, "--") && w != "--" {
			f, _, hasVal := strings.Cut(w[2:], "=")
			if spec, ok := cmd.spec.Flag(f); ok && spec.Value != "" && !hasVal {
				valueOf = f
			}
			if f == "db" && hasVal {
				dbFlag = strings.TrimPrefix(w, "--db=")
			}
			continue
		}
		idx++
	}
	var kind commands.ArgKind
	switch {
	case valueOf != "":
		f, _ := cmd.spec.Flag(valueOf)
		kind = f.Kind
	case strings.HasPrefix(cur, "-"):
		var flags []string
		for _, f := range cmd.spec.FlagsOf() {
			flags = append(flags, "--"+f.Name)
		}
		return finals(flags)
	default:
		kind = cmd.spec.ArgKind(idx)
	}
	switch kind {
	case commands.ArgCommand:
		return finals(commandNames())
	case commands.ArgVerb:
		return finals(cmd.spec.VerbNames())
	case commands.ArgShell:
		return finals(commands.Shells)
	case commands.ArgPath:
		return pathCandidates(cur)
	case commands.ArgDoc:
		return c.docCandidates(dbFlag, cur)
	case commands.ArgEntity:
		return c.entityCandidates(dbFlag, cur)
	}
	return nil
}

// commandNames are the first words of a session line: the table's
// commands and the session commands.
func commandNames() []string { return append(Names(), sessionNames()...) }

// sessionArgCandidates completes the argument at index idx of a session
// command (only the first takes any).
func sessionArgCandidates(name string, idx int, cur string) []candidate {
	if idx > 0 {
		return nil
	}
	switch name {
	case ".mode":
		return finals(modes)
	case ".keep", ".timer":
		return finals([]string{"on", "off"})
	case ".read":
		return pathCandidates(cur)
	case ".output":
		return append(finals([]string{"stdout"}), pathCandidates(cur)...)
	case ".help", `\?`:
		return finals(commandNames())
	}
	return nil
}

func finals(values []string) []candidate {
	out := make([]candidate, len(values))
	for i, v := range values {
		out[i] = candidate{value: v, final: true}
	}
	return out
}

// maxDocCandidates caps the document names (and hashes) one Tab offers:
// they are read by a seek on the names index, so completion costs the
// same at any size of the archive.
const maxDocCandidates = 200

// docCandidates: the document names starting with cur (at most
// maxDocCandidates), and hash prefixes (12 hex digits, or the whole hash
// once 12 are typed) when cur is hexadecimal.
func (c *completer) docCandidates(dbFlag, cur string) []candidate {
	var names []string
	var digests []db.Digest
	if c.s.readArchive(dbFlag, func(a *db.Archive) (err error) {
		names, digests, err = a.CompleteDocs(cur, maxDocCandidates)
		return err
	}) != nil {
		return nil
	}
	for _, d := range digests {
		h := d.String()
		if len(cur) < 12 {
			h = h[:12]
		}
		names = append(names, h)
	}
	sort.Strings(names)
	return finals(names)
}

// entityCandidates: entity names of the archive starting with cur.
func (c *completer) entityCandidates(dbFlag, cur string) []candidate {
	var names []index.NameCount
	if c.s.readArchive(dbFlag, func(a *db.Archive) (err error) {
		names, err = a.EntityNames(cur)
		return err
	}) != nil {
		return nil
	}
	out := make([]candidate, len(names))
	for i, n := range names {
		out[i] = candidate{value: n.Name, final: true}
	}
	return out
}

// pathCandidates: the entries of cur's directory that start with its last
// element; directories end with / and are not final. Hidden entries only
// when cur's last element starts with a dot.
func pathCandidates(cur string) []candidate {
	dir, base := filepath.Split(cur)
	read := dir
	if read == "" {
		read = "."
	}
	entries, err := os.ReadDir(read)
	if err != nil {
		return nil
	}
	var out []candidate
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (name[0] == '.' && !strings.HasPrefix(base, ".")) {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(read, name)); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			out = append(out, candidate{value: dir + name + "/"})
		} else {
			out = append(out, candidate{value: dir + name, final: true})
		}
	}
	return out
}
