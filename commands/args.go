package commands

import "fmt"

// A command's arguments and flags are declared here and nowhere else:
// help and `help --json`, the CLI's and the REPL's parser, Tab completion
// and the shell completion scripts (which ask the binary for its
// candidates) all read them from the table, so a new flag reaches every
// one of them by its one entry.

// ArgKind is what an argument or a flag's value names, which is what Tab
// completion offers for it.
type ArgKind int

const (
	ArgNone    ArgKind = iota // free text: nothing to offer
	ArgDoc                    // a document name or hash prefix
	ArgPath                   // a file or directory
	ArgEntity                 // an entity name
	ArgCommand                // a command name
	ArgVerb                   // a subcommand (Spec.Verbs)
	ArgShell                  // a shell of `completion`
)

// Flag is one --flag of a command.
type Flag struct {
	Name  string // without dashes
	Value string // placeholder of its value; "" for a boolean flag
	Help  string
	// Repeat: the flag may be given several times (each value is kept).
	Repeat bool
	// Kind is what the value names (ArgNone for a boolean flag).
	Kind ArgKind
}

// Verb is one subcommand of a command that has them (`claims check`).
type Verb struct {
	Name, Args, Summary string
	NArgs               int // its positional arguments after the verb
}

// GlobalFlags are accepted by every command.
var GlobalFlags = []Flag{
	{Name: "db", Value: "PATH", Kind: ArgPath, Help: "archive file (default $CHRONICLE_DB or ./chronicle.db)"},
	{Name: "wait", Value: "DURATION", Help: "wait this long for another process's lock (default $CHRONICLE_WAIT or 5s)"},
	{Name: "json", Help: "print JSON (the canonical result line for query, claim and find)"},
	{Name: "text", Help: "print the human view even when stdout is not a terminal"},
}

// CommitEvery is the default of ingest's --commit-every: the files one
// commit holds at most (the CLI's ingest groups closes at as many).
const CommitEvery = 2048

// The flags several commands share.
var (
	FlagReceipt = Flag{Name: "receipt", Value: "FILE", Kind: ArgPath, Help: "also write the receipt to FILE (never overwrites a different file); - prints it"}
	FlagKeep    = Flag{Name: "keep", Help: "keep the receipt in the archive (`receipts` lists it); without it the answer writes nothing"}
	FlagLimit   = Flag{Name: "limit", Value: "N", Help: "show at most N documents (default 20)"}
	// FlagKey names the signing key of the files a command writes (a
	// receipt, rows), each signed in FILE.sig (db/keys, engine/sign).
	FlagKey = Flag{Name: "key", Value: "FILE", Kind: ArgPath, Help: "sign the file written (FILE.sig) with this key (default $CHRONICLE_KEY, else Chronicle's own)"}

	flagFindDoc   = Flag{Name: "doc", Value: "DOC", Kind: ArgDoc, Help: "search one document"}
	flagSettleDoc = Flag{Name: "doc", Value: "DOC", Kind: ArgDoc, Repeat: true,
		Help: "settle over this document only (repeat it to choose several; default: every document)"}
	flagName     = Flag{Name: "name", Value: "NAME", Help: "also name the document NAME"}
	flagCommit   = Flag{Name: "commit-every", Value: "N", Help: fmt.Sprintf("commit at most N files at a time (default %d); each commit lands whole", CommitEvery)}
	flagVerify   = Flag{Name: "verify", Help: "re-verify each receipt"}
	flagKeyShown = Flag{Name: "key", Value: "FILE", Kind: ArgPath, Help: "the key to print (default $CHRONICLE_KEY, else Chronicle's own, created the first time)"}
	flagLogOut   = Flag{Name: "out", Value: "FILE", Kind: ArgPath, Help: "also save the checkpoint to FILE (never overwrites a different file)"}
	flagOriginal = Flag{Name: "original", Help: "write the original file the document was derived from (a mail, a web page, a PDF, an attachment) to DIR, byte for byte, instead of its store"}
	flagOCR      = Flag{Name: "ocr", Help: "read PDFs without a text layer with OCR (pdftoppm and tesseract, Arabic and English when installed)"}
	flagProveOut = Flag{Name: "out", Value: "FILE", Kind: ArgPath, Help: "write the proof to FILE instead of stdout (never overwrites a different file)"}
	flagLogKey   = Flag{Name: "key", Value: "FILE", Kind: ArgPath, Help: "the key that signs the checkpoint (--sign) and checks saved ones (default $CHRONICLE_KEY, else Chronicle's own)"}
	flagLogSign  = Flag{Name: "sign", Help: "sign a checkpoint of the log as it is now with the key first (creates the key the first time)"}
	flagTrust    = Flag{Name: "trust", Value: "KEY", Help: "the note verifier key (as `chronicle key` prints it), or a file holding it, that signed a checkpoint or proof (default: your own key's)"}
	flagOut      = Flag{Name: "out", Value: "ROWS", Kind: ArgPath, Help: "claims check: also write the rows to ROWS (never overwrites a different file)"}
	serveFlags   = []Flag{
		{Name: "addr", Value: "HOST:PORT", Help: "listen on HOST:PORT (default 127.0.0.1:0: a free port of the loopback address); only loopback names are answered"},
		{Name: "write", Help: "also serve the answers that write (--keep, and checking a claims file on /claims/check), as POSTs with the page's CSRF token; default: read-only"},
	}
	docsFlags = []Flag{
		{Name: "limit", Value: "N", Help: "list at most N documents (default all); with more left, the readable view ends with the command of the next page"},
		{Name: "after", Value: "DOC", Help: "start after DOC (a name or hash prefix, e.g. the last row of the previous page)"},
		{Name: "sort", Value: "ORDER", Help: "import (the default), newest (import order reversed), name (by first name; documents without one last), size (largest first) or events (most first); each reads only its page"},
	}
)

// LogVerbs are the subcommands of `log` (without one, `log` prints the
// checkpoint).
var LogVerbs = []Verb{
	{Name: "verify", Args: "CHECKPOINT", Summary: "prove the archive today extends a checkpoint saved earlier: nothing removed, nothing rewritten", NArgs: 1},
}

// ClaimsVerbs are the subcommands of `claims`.
var ClaimsVerbs = []Verb{
	{Name: "check", Args: "FILE [--out ROWS]", Summary: "check a claims file against the archive; one row per claim line, kept", NArgs: 1},
	{Name: "read", Args: "ROWS", Summary: "the strict row reader on any rows file (no archive): `line N: ok` or why not", NArgs: 1},
	{Name: "verify", Args: "ROWS", Summary: "recompute every row from the archive (result, receipt, outcome): VALID or INVALID", NArgs: 1},
	{Name: "list", Summary: "the checks kept in the archive, with their counts per outcome"},
}

// Shells are the shells `completion` writes a script for.
var Shells = []string{"bash", "zsh", "fish"}

// FlagsOf is the flags a command accepts: its own, then the global ones.
func (s *Spec) FlagsOf() []Flag {
	return append(append([]Flag{}, s.Flags...), GlobalFlags...)
}

// Flag finds one of the flags the command accepts (its own or a global
// one).
func (s *Spec) Flag(name string) (Flag, bool) {
	for _, f := range s.FlagsOf() {
		if f.Name == name {
			return f, true
		}
	}
	return Flag{}, false
}

// ArgKind is what the positional argument at index i names: the last
// kind repeats for a command that takes any number of arguments.
func (s *Spec) ArgKind(i int) ArgKind {
	switch {
	case i < len(s.Kinds):
		return s.Kinds[i]
	case len(s.Kinds) > 0 && s.Max < 0:
		return s.Kinds[len(s.Kinds)-1]
	}
	return ArgNone
}

// VerbNames lists the command's subcommands.
func (s *Spec) VerbNames() []string {
	out := make([]string, len(s.Verbs))
	for i, v := range s.Verbs {
		out[i] = v.Name
	}
	return out
}
