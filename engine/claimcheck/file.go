package claimcheck

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/claimrow"
	"github.com/casper-chronicle/chronicle/engine/find"
	"github.com/casper-chronicle/chronicle/engine/settle"
)

// Version is the claims file format this package reads
// ({"chronicle-claims":1,...}).
const Version = 1

// Limits of a claims file.
const (
	// LineBytes bounds each line, without its LF (README.md §2.1: 64 KiB).
	LineBytes = claimrow.RowBytes
	// MaxFileBytes bounds the whole file, so that a wrong path is refused
	// before it is read into memory.
	MaxFileBytes = 64 << 20
	// MaxQuestion bounds a query or find terms: what an archive receipt
	// carries (db.MaxQuestion).
	MaxQuestion = 1 << 16
)

// ErrFile wraps every refusal of a claims file.
var ErrFile = errors.New("claims file refused")

// FileError is a refusal at one line of a claims file.
type FileError struct {
	Line   int
	Field  string
	Reason string
}

func (e *FileError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Reason)
}

// Unwrap makes every FileError an ErrFile.
func (e *FileError) Unwrap() error { return ErrFile }

// ResultKind is what a result line asks, from the line alone (README.md
// §3.1).
type ResultKind int

// Result kinds.
const (
	SettlementResult ResultKind = iota + 1 // a query that is not @claim
	LiteralResult                          // a query starting with "@claim<TAB>"
	FindResult                             // find terms
)

func (k ResultKind) String() string {
	return [...]string{"", "settlement query", "literal claim query", "find"}[k]
}

// ResultLine is one result line: the question a claim can rest on.
type ResultLine struct {
	Ordinal  int64
	Line     int
	Document string // a name or hash prefix, resolved by the caller
	Question string // the query question or the find terms
	Kind     ResultKind
}

// ClaimLine is one declared claim.
type ClaimLine struct {
	Ordinal        int64
	Line           int
	Standing       string
	Iteration      int64
	Turn           int64          // 0: not given
	DeclaredOn     claimrow.Value // "answer" or {"toolCallId": text}
	DeclaredResult int64          // 0: not given
	DeclaredRule   string         // "": not given
	DeclaredValue  claimrow.Value
}

// File is a claims file that ParseFile accepted.
type File struct {
	Namespace string
	RunID     string
	Results   []*ResultLine // in file order
	Claims    []*ClaimLine  // in file order: one row each
	SHA256    [32]byte      // of the file's bytes

	results map[int64]*ResultLine // by ordinal
	claims  map[int64]*ClaimLine  // by ordinal
}

// Result returns the result line with the ordinal, or nil.
func (f *File) Result(ordinal int64) *ResultLine {
	if f.results == nil { // a File built by hand, not by ParseFile
		for _, r := range f.Results {
			if r.Ordinal == ordinal {
				return r
			}
		}
	}
	return f.results[ordinal]
}

// Lines splits data into JSON Lines: LF ends a line, a final LF does not
// start another, and bytes after the last LF are one more line.
func Lines(data []byte) [][]byte {
	data, _ = bytes.CutSuffix(data, []byte("\n"))
	if len(data) == 0 {
		return nil
	}
	return bytes.Split(data, []byte("\n"))
}

// ParseFile reads a claims file (README.md §2). A refusal is a *FileError
// naming the line and the field.
func ParseFile(data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, &FileError{Line: 1, Reason: fmt.Sprintf("the file is %d bytes, at most %d", len(data), MaxFileBytes)}
	}
	lines := Lines(data)
	if len(lines) == 0 {
		return nil, &FileError{Line: 1, Reason: `the file is empty; line 1 is the header {"chronicle-claims":1,"namespace":…,"runId":…}`}
	}
	f := &File{SHA256: sha256.Sum256(data), results: map[int64]*ResultLine{}, claims: map[int64]*ClaimLine{}}
	for i, raw := range lines {
		n := i + 1
		if bytes.HasSuffix(raw, []byte("\r")) {
			return nil, &FileError{Line: n, Reason: "the line ends with CR (lines end with LF alone)"}
		}
		v, err := claimrow.ParseLine(raw, LineBytes)
		if err != nil {
			return nil, &FileError{Line: n, Reason: err.Error()}
		}
		if v.Kind != claimrow.Object {
			return nil, &FileError{Line: n, Reason: fmt.Sprintf("the line is %s, not a JSON object", v.Kind)}
		}
		switch {
		case n == 1:
			err = f.header(v)
		case v.Has("result") && v.Has("claim"):
			err = &FileError{Field: "claim", Reason: `a line is a result line ("result") or a claim line ("claim"), not both`}
		case v.Has("result"):
			err = f.resultLine(v, n)
		case v.Has("claim"):
			err = f.claimLine(v, n)
		default:
			err = &FileError{Reason: `neither a result line ("result") nor a claim line ("claim")`}
		}
		if err != nil {
			fe := err.(*FileError)
			fe.Line = n
			return nil, fe
		}
	}
	for _, c := range f.Claims {
		if c.DeclaredResult != 0 && f.Result(c.DeclaredResult) == nil {
			return nil, &FileError{Line: c.Line, Field: "declaredResult", Reason: fmt.Sprintf("no result line has ordinal %d", c.DeclaredResult)}
		}
	}
	return f, nil
}

func fieldError(field, format string, args ...any) error {
	return &FileError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// nested puts the refusal err (a *FileError about a key of field's object)
// under field: "declaredOn: toolCallId: missing". (Formatting err itself
// would print the "line 0" of a FileError whose line is not set yet.)
func nested(field string, err error) error {
	fe := err.(*FileError)
	return fieldError(field, "%s: %s", fe.Field, fe.Reason)
}

// known refuses keys outside allowed.
func known(v claimrow.Value, what string, allowed ...string) error {
	for _, m := range v.Members {
		if !slices.Contains(allowed, m.Key) {
			return fieldError(m.Key, "unknown key (%s has %s)", what, strings.Join(allowed, ", "))
		}
	}
	return nil
}

// text reads a required string of 1..4096 UTF-16 units.
func text(v claimrow.Value, field string) (string, error) {
	x := v.Get(field)
	switch {
	case x.Kind == claimrow.Absent:
		return "", fieldError(field, "missing")
	case x.Kind != claimrow.String:
		return "", fieldError(field, "%s, want a string", x.Kind)
	case !claimrow.BoundedText(x):
		return "", fieldError(field, "want 1 to %d characters (UTF-16 units), got %d", claimrow.TextBound, claimrow.UTF16Len(x.Str))
	}
	return x.Str, nil
}

// integer reads an integer >= minimum; a missing optional field gives 0.
func integer(v claimrow.Value, field string, minimum int64, required bool) (int64, error) {
	x := v.Get(field)
	switch {
	case x.Kind == claimrow.Absent && !required:
		return 0, nil
	case x.Kind == claimrow.Absent:
		return 0, fieldError(field, "missing")
	case x.Kind != claimrow.Int:
		return 0, fieldError(field, "%s, want an integer >= %d", x.Kind, minimum)
	case x.Int < minimum:
		return 0, fieldError(field, "%d, want an integer >= %d", x.Int, minimum)
	}
	return x.Int, nil
}

func (f *File) header(v claimrow.Value) error {
	version := v.Get("chronicle-claims")
	if version.Kind == claimrow.Absent {
		return fieldError("chronicle-claims", `missing: line 1 is the header {"chronicle-claims":1,"namespace":…,"runId":…}`)
	}
	if err := known(v, "the header", "chronicle-claims", "namespace", "runId"); err != nil {
		return err
	}
	switch {
	case version.Kind != claimrow.Int || version.Int != Version:
		return fieldError("chronicle-claims", "version %s is not supported (this build reads %d)", claimrow.Canonical(version), Version)
	}
	var err error
	if f.Namespace, err = text(v, "namespace"); err != nil {
		return err
	}
	f.RunID, err = text(v, "runId")
	return err
}

// ordinal reads the ordinal of a result or claim line: unique, and its
// identity within the identity bound.
func (f *File) ordinal(v claimrow.Value, field string, seen func(int64) int, identity func(claimrow.Identity) (string, error), bound int) (int64, error) {
	n, err := integer(v, field, 1, true)
	if err != nil {
		return 0, err
	}
	if at := seen(n); at != 0 {
		return 0, fieldError(field, "ordinal %d repeats line %d", n, at)
	}
	id, err := identity(claimrow.Identity{Namespace: f.Namespace, RunID: f.RunID, Ordinal: n})
	if err != nil {
		return 0, fieldError(field, "%v", err)
	}
	if units := claimrow.UTF16Len(id); units > bound {
		return 0, fieldError(field, "its identity is %d characters (UTF-16 units), at most %d; shorten the namespace or runId", units, bound)
	}
	return n, nil
}

func (f *File) resultLine(v claimrow.Value, line int) error {
	if err := known(v, "a result line", "result", "document", "query", "find"); err != nil {
		return err
	}
	seen := func(n int64) int {
		if r := f.Result(n); r != nil {
			return r.Line
		}
		return 0
	}
	r := &ResultLine{Line: line}
	var err error
	if r.Ordinal, err = f.ordinal(v, "result", seen, claimrow.ResultID, claimrow.ResultIDText); err != nil {
		return err
	}
	if r.Document, err = text(v, "document"); err != nil {
		return err
	}
	query, terms := v.Get("query"), v.Get("find")
	switch {
	case query.Kind != claimrow.Absent && terms.Kind != claimrow.Absent:
		return fieldError("find", "a result line has query or find, not both")
	case query.Kind == claimrow.Absent && terms.Kind == claimrow.Absent:
		return fieldError("query", "missing (a result line has query or find)")
	case query.Kind != claimrow.Absent:
		r.Kind = SettlementResult
		if r.Question, err = question(query, "query"); err != nil {
			return err
		}
		if settle.IsClaim(r.Question) {
			r.Kind = LiteralResult
			if _, _, _, err := settle.ParseClaim(r.Question); err != nil {
				return fieldError("query", "%v", err)
			}
		}
	default:
		r.Kind = FindResult
		if r.Question, err = question(terms, "find"); err != nil {
			return err
		}
		if _, err := find.Terms(r.Question); err != nil {
			return fieldError("find", "%v", err)
		}
	}
	f.Results = append(f.Results, r)
	f.results[r.Ordinal] = r
	return nil
}

// question reads a query question (0..MaxQuestion bytes of text: query
// accepts an empty question, which selects no debt) or find terms
// (1..MaxQuestion bytes).
func question(v claimrow.Value, field string) (string, error) {
	switch {
	case v.Kind != claimrow.String:
		return "", fieldError(field, "%s, want a string", v.Kind)
	case v.Str == "" && field == "find":
		return "", fieldError(field, "empty")
	case len(v.Str) > MaxQuestion:
		return "", fieldError(field, "%d bytes, at most %d", len(v.Str), MaxQuestion)
	case !engine.ValidTextString(v.Str):
		return "", fieldError(field, "not text the archive accepts (NUL)")
	}
	return v.Str, nil
}

func (f *File) claimLine(v claimrow.Value, line int) error {
	if err := known(v, "a claim line", "claim", "standing", "iteration", "turn", "declaredOn", "declaredResult", "declaredRule", "declaredValue"); err != nil {
		return err
	}
	seen := func(n int64) int {
		if c := f.claims[n]; c != nil {
			return c.Line
		}
		return 0
	}
	c := &ClaimLine{Line: line}
	var err error
	if c.Ordinal, err = f.ordinal(v, "claim", seen, claimrow.ClaimID, claimrow.IdentityText); err != nil {
		return err
	}
	if c.Standing, err = text(v, "standing"); err != nil {
		return err
	}
	if !slices.Contains(claimrow.StandingValues, c.Standing) {
		return fieldError("standing", "%q is not fact, open, ruled-out or noise", c.Standing)
	}
	if c.Iteration, err = integer(v, "iteration", 0, true); err != nil {
		return err
	}
	if c.Turn, err = integer(v, "turn", 1, false); err != nil {
		return err
	}
	c.DeclaredOn = v.Get("declaredOn")
	switch on := c.DeclaredOn; {
	case on.Kind == claimrow.Absent:
		return fieldError("declaredOn", `missing ("answer" or {"toolCallId": …})`)
	case on.IsString("answer"):
	case on.Kind != claimrow.Object:
		return fieldError("declaredOn", `%s, want "answer" or {"toolCallId": …}`, claimrow.Canonical(on))
	default:
		if err := known(on, "declaredOn", "toolCallId"); err != nil {
			return nested("declaredOn", err)
		}
		if _, err := text(on, "toolCallId"); err != nil {
			return nested("declaredOn", err)
		}
	}
	if c.DeclaredResult, err = integer(v, "declaredResult", 1, false); err != nil {
		return err
	}
	if v.Has("declaredRule") {
		if c.DeclaredRule, err = text(v, "declaredRule"); err != nil {
			return err
		}
	}
	c.DeclaredValue = v.Get("declaredValue")
	if c.DeclaredValue.Kind == claimrow.Absent {
		return fieldError("declaredValue", "missing (any JSON value; null is a value)")
	}
	if n := len(claimrow.Canonical(c.DeclaredValue)); n > claimrow.ValueBytes {
		return fieldError("declaredValue", "%d bytes as canonical JSON, at most %d", n, claimrow.ValueBytes)
	}
	f.Claims = append(f.Claims, c)
	f.claims[c.Ordinal] = c
	return nil
}
