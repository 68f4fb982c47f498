package chronicle

import (
	"errors"
	"fmt"
	"github.com/casper-chronicle/chronicle/db/keys"
	"github.com/casper-chronicle/chronicle/engine/sign"
	"golang.org/x/mod/sumdb/note"
	"time"

	"github.com/casper-chronicle/chronicle/commands"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// Errors callers branch on; every other error says what was wrong.
var (
	// ErrLocked: another process held the lock a call needed for all of
	// Options.LockTimeout (a writer in its write, when reading; readers in
	// their read or a writer in its write, when writing). Open and every
	// method can return it; nothing was done, and the call can be retried.
	ErrLocked = db.ErrLocked
	// ErrNoArchive: a read-only open of a file that does not exist.
	ErrNoArchive = db.ErrNoArchive
	// ErrUnknownDocument: no document has that name or hash prefix.
	ErrUnknownDocument = db.ErrUnknownDoc
	// ErrCorrupt: bytes read back do not match their digests, or a page
	// could not be read; nothing was answered around the damage.
	ErrCorrupt = db.ErrCorrupt
	// ErrDamaged: the archive's file is damaged where a read could not get
	// past it: a page that could not be read, header pages that do not
	// check, a file cut short. The error is a *DamageError.
	ErrDamaged = db.ErrDamaged
	// ErrBadQuestion: a question or term string the grammar refuses (not
	// valid UTF-8 text, too long, or a claim field with a TAB).
	ErrBadQuestion = errors.New("bad question")
)

// DamageError is a damaged archive, or a path that holds no archive at
// all, in one line naming the archive, what was wrong and the next step,
// the line the chronicle command prints for it (errors.As finds it; its
// Kind is one of package db's Damage values). Open and every method that
// reads the archive return it where the CLI would say the archive is
// damaged, instead of panicking: a damaged page can make bbolt panic or
// fault, and each call runs under db.Guard, which turns that into this
// error.
type DamageError = db.DamageError

// WatchStack starts the stack watch of the chronicle command in this
// process: a damaged archive whose page tree loops sends a read into
// endless recursion, which Go cannot stop or recover from; with the watch,
// the process then ends with the archive's one line on stderr and exit 1,
// without it, as the runtime ends any stack overflow (a fatal error and a
// dump of every goroutine). Call it only in a program that owns its
// process and runs no deep recursion or thousands of goroutines of its
// own: it lowers the process's stack limit to 256 MiB and watches every
// goroutine's stacks while a call of an Archive runs (db/stackwatch.go).
func WatchStack() { db.WatchStack() }

// Options tune Open; the zero value (or nil) opens for writing and creates
// a missing archive.
type Options struct {
	// ReadOnly opens for reading only: the archive must exist, and
	// nothing is written, ever (an upgrade of an older schema aside, which
	// Open does once when the file can be written).
	ReadOnly bool
	// LockTimeout is how long Open and each call wait for another
	// process's lock before ErrLocked (default 5 s): a read waits for a
	// writer's commit, a write for the readers in their reads.
	LockTimeout time.Duration
	// SigningKey is an unencrypted OpenSSH Ed25519 private key file (mode
	// 0600) that signs the archive log's checkpoints: every write then
	// keeps a checkpoint of the log it leaves, signed, as the CLI's writes
	// do. Without one, writes append to the log unsigned (the CLI's next
	// write, or `chronicle log --sign`, signs them).
	SigningKey string
}

// Archive is an open archive file. Between calls it holds no lock: each
// read takes the shared lock for its call, each write the exclusive one
// for its write (see the package documentation).
type Archive struct {
	db *db.Archive
	// writing, when set (tests), is called in each write that holds the
	// exclusive lock for its whole call, once the lock is taken.
	writing func()
}

// Open opens (or, unless opts.ReadOnly, creates) the archive at path,
// upgrading an older schema when the file can be written, and lets go of
// its lock before it returns: the Archive takes the lock again in each
// call, only for that call.
func Open(path string, opts *Options) (*Archive, error) {
	if opts == nil {
		opts = &Options{}
	}
	var signer note.Signer
	var verifier note.Verifier
	if opts.SigningKey != "" {
		k, err := keys.Read(opts.SigningKey)
		if err != nil {
			return nil, err
		}
		if signer, verifier, err = sign.NoteKeys(k.Private); err != nil {
			return nil, err
		}
	}
	var a *db.Archive
	err := db.Guard(path, func() (err error) {
		a, err = db.Open(path, db.Options{ReadOnly: opts.ReadOnly, Timeout: opts.LockTimeout, WaitOption: "Options.LockTimeout"})
		if err != nil || signer == nil {
			return err
		}
		a.LogVerifier(verifier)
		if !opts.ReadOnly {
			a.LogSigner(signer)
			if a.UpgradedFrom > 0 { // the upgrade built the log: sign it while the lock is held
				err = a.SignLog()
			}
		}
		return err
	})
	if err != nil {
		if a != nil {
			a.Close()
		}
		return nil, err
	}
	// Held until now for the creation, the upgrade and a batch a killed
	// writer left unfolded; from here the lock is taken per call (Hold), so
	// an idle Archive blocks no other process, as a finished CLI command.
	if err := a.Release(); err != nil {
		a.Close()
		return nil, fmt.Errorf("archive %s: releasing the lock: %w", path, err)
	}
	return &Archive{db: a}, nil
}

// Checkpoint is the archive log's last signed checkpoint (a C2SP signed
// note), as `chronicle log` prints it; an error when the log has changes
// no checkpoint covers (writes without Options.SigningKey).
func (a *Archive) Checkpoint() (string, error) {
	var out *commands.LogOut
	err := a.read(func() error {
		var err error
		out, err = commands.Log(a.db)
		return err
	})
	if err != nil {
		return "", err
	}
	return out.Checkpoint, nil
}

// Close closes the archive (which holds no lock between calls).
func (a *Archive) Close() error { return a.db.Close() }

// guard runs fn, which reads or writes the archive, under db.Guard, as
// the CLI runs a command: a damaged page is a *DamageError, not a panic.
func (a *Archive) guard(fn func() error) error { return db.Guard(a.db.Path(), fn) }

// read runs fn under the shared lock, taken for fn alone, guarded.
func (a *Archive) read(fn func() error) error {
	return a.guard(func() error { return a.db.Hold(true, fn) })
}

// write runs fn under the exclusive lock, taken for fn alone, guarded.
func (a *Archive) write(fn func() error) error {
	return a.guard(func() error {
		return a.db.Hold(false, func() error {
			if a.writing != nil {
				a.writing()
			}
			return fn()
		})
	})
}

// Document describes one stored document.
type Document struct {
	SHA256     string    // hex SHA-256 of the source bytes: the document's identity
	Names      []string  // names it was ingested or imported under, first first
	Size       int64     // source bytes
	Events     int       // typed events extracted from it
	ImportedAt time.Time // the canonical store's import time (first ingest)
}

func document(d *db.Document) Document {
	return Document{
		SHA256: d.SHA256.String(), Names: append([]string(nil), d.Names...),
		Size: d.SourceSize, Events: d.EventCount, ImportedAt: d.Imported(),
	}
}

// Documents lists the archive's documents in import order.
func (a *Archive) Documents() ([]Document, error) {
	out := []Document{}
	err := a.read(func() error {
		_, err := commands.Docs(a.db, commands.DocsIn{}, func(d *db.Document) error {
			out = append(out, document(d))
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Ingested is what Ingest did.
type Ingested struct {
	Document Document
	// Reused: the same bytes were already in the archive; name was added
	// to that document (or it already had it).
	Reused bool
	// Receipt is the document's INGEST receipt, kept in the archive.
	Receipt []byte
}

// Ingest stores src under name in one durable transaction: a source that
// is refused (invalid UTF-8, a NUL byte, over 8 MiB, over 4,096 events)
// leaves the archive exactly as it was. The import time is now, or
// SOURCE_DATE_EPOCH when set (reproducible stores). The document is
// looked up under the shared lock and extracted with no lock; the
// exclusive lock is held only for the commit.
func (a *Archive) Ingest(name string, src []byte) (*Ingested, error) {
	if name == "" {
		return nil, errors.New("ingest: the document needs a name")
	}
	at, err := db.ImportTime()
	if err != nil {
		return nil, err
	}
	var res *db.IngestResult
	err = a.guard(func() (err error) {
		res, err = a.db.Ingest(src, at, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", name, err)
	}
	return &Ingested{Document: document(res.Doc), Reused: res.Reused, Receipt: res.Receipt.Encode()}, nil
}

// IngestFile stores the file at path as Ingest does, named by path as
// given; its cleaned absolute path is kept too, so that `./x.txt`, the
// absolute path or a path from another directory all name the document
// later. Anything but a regular file of at most 8 MiB is refused before
// the archive is touched; the lock is taken as Ingest takes it.
func (a *Archive) IngestFile(path string) (*Ingested, error) {
	at, err := db.ImportTime()
	if err != nil {
		return nil, err
	}
	src, err := fileio.ReadLimited(path, engine.MaxSourceSize)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	var res *db.IngestResult
	err = a.guard(func() (err error) {
		res, err = a.db.IngestFile(a.db.Prepare(src, at), path)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("ingest %s: %w", path, err)
	}
	return &Ingested{Document: document(res.Doc), Reused: res.Reused, Receipt: res.Receipt.Encode()}, nil
}

// Answer is one document's answer to a question.
type Answer struct {
	Document Document
	// Status is SUPPORTED, PARTIAL, CONFLICT or UNKNOWN for a settlement
	// question, EXACT_STATED or UNRESOLVED for a claim, MATCHES or
	// NO_MATCH for find.
	Status string
	// JSON is the canonical result line (no newline), byte for byte what
	// the original casper-chronicle prints for the same store and question.
	JSON []byte
	// Receipt is the archive receipt binding question, store and result;
	// Verify replays it. It is issued, not kept in the archive.
	Receipt []byte
}

// Query answers a debt-settlement question ("Did Ahmed repay Khalid?",
// "هل سدد أحمد دين خالد؟", or the `@settlement` form) or an `@claim`
// question on one document, named by a name or at least 8 hex digits of
// its SHA-256.
func (a *Archive) Query(doc, question string) (*Answer, error) {
	if err := (commands.QueryIn{Document: doc, Question: question}).Check(); err != nil {
		return nil, fmt.Errorf("query: %w: %v", ErrBadQuestion, err)
	}
	return a.answer(doc, db.KindQuery, question)
}

// Claim looks for the literal statement `Subject Predicate Object.` in one
// document (EXACT_STATED when stated, else UNRESOLVED).
func (a *Archive) Claim(doc, subject, predicate, object string) (*Answer, error) {
	in, err := commands.ClaimIn{Document: doc, Subject: subject, Predicate: predicate, Object: object}.Query()
	if err == nil {
		err = in.Check()
	}
	if err != nil {
		return nil, fmt.Errorf("claim: %w: %v", ErrBadQuestion, err)
	}
	return a.answer(doc, db.KindQuery, in.Question)
}

// FindIn searches one document for terms (space-separated; lines are
// ranked by how many distinct terms they contain).
func (a *Archive) FindIn(doc, terms string) (*Answer, error) {
	if _, _, err := (commands.FindIn{Terms: terms, Document: doc}).Check(true, true); err != nil {
		return nil, fmt.Errorf("find: %w: %v", ErrBadQuestion, err)
	}
	return a.answer(doc, db.KindFind, terms)
}

func (a *Archive) answer(doc string, kind db.ReceiptKind, question string) (*Answer, error) {
	var ans *db.DocAnswer
	err := a.read(func() error {
		d, err := a.db.Resolve(doc)
		if err != nil {
			return err
		}
		ans, err = a.db.Answer(d, kind, question)
		return err
	})
	if err != nil {
		return nil, err
	}
	var status string
	switch {
	case ans.Settlement != nil:
		status = string(ans.Settlement.ResultStatus())
	case ans.Claim != nil:
		status = string(ans.Claim.ResultStatus())
	case ans.Find != nil:
		status = ans.Find.Status
	}
	return &Answer{Document: document(ans.Doc), Status: status, JSON: ans.JSON, Receipt: ans.Receipt.Encode()}, nil
}

// ArchiveAnswer is an answer drawn from several documents: find across the
// archive, an entity lookup, a settlement across documents.
type ArchiveAnswer struct {
	// Documents are those the answer lists, best first for find, in
	// import order otherwise.
	Documents []Document
	// Status is the settlement status for Settle, "" otherwise.
	Status string
	// JSON is the canonical result the receipt binds (its result_sha256
	// is the SHA-256 of these bytes). For Settle it is one line without a
	// newline, the settlement `chronicle settle --json` prints. For Find
	// it is one line per document listed, for Entity one line per event,
	// each ending in a newline, in the order of the answer; these are the
	// lines `chronicle find --json` and `entity --json` print, less their
	// "names" member (names are aliases, and can change after the
	// receipt). No match: no bytes.
	JSON []byte
	// Receipt is the set receipt binding the documents the answer ran
	// over; Verify replays it, also after later ingests.
	Receipt []byte
}

// Find searches every document for terms and returns at most limit
// documents, ranked by best matched terms, then matching lines, then
// import order. The limit reads as `chronicle find --limit` (db.FindLimit):
// 0 is the default of 20 documents; a negative limit, or one above
// 2,147,483,647, is refused with ErrBadQuestion.
func (a *Archive) Find(terms string, limit int) (*ArchiveAnswer, error) {
	in := commands.FindIn{Terms: terms, Limit: limit}
	if _, _, err := in.Check(false, true); err != nil {
		return nil, fmt.Errorf("find: %w: %v", ErrBadQuestion, err)
	}
	var res *commands.FindOut
	err := a.read(func() (err error) {
		res, err = commands.Find(a.db, in, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	hits, rec := res.Hits, res.Receipt
	out := &ArchiveAnswer{JSON: db.FindResult(hits), Receipt: rec.Encode()}
	for _, h := range hits {
		out.Documents = append(out.Documents, document(h.Doc))
	}
	return out, nil
}

// Entity lists every event whose subject or object is exactly name, across
// documents, with its re-read evidence.
func (a *Archive) Entity(name string) (*ArchiveAnswer, error) {
	in := commands.EntityIn{Name: name}
	if err := in.Check(true); err != nil {
		return nil, fmt.Errorf("entity: %w: %v", ErrBadQuestion, err)
	}
	var res *commands.EntityOut
	err := a.read(func() (err error) {
		res, err = commands.Entity(a.db, in, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	hits, rec := res.Hits, res.Receipt
	out := &ArchiveAnswer{JSON: db.EntityResult(hits), Receipt: rec.Encode()}
	seen := map[db.Digest]bool{}
	for _, h := range hits {
		if !seen[h.Doc.SHA256] {
			seen[h.Doc.SHA256] = true
			out.Documents = append(out.Documents, document(h.Doc))
		}
	}
	return out, nil
}

// Settle answers a settlement question across documents: every document
// when docs is empty, else the named ones (a loan agreement and the bank
// statement that repays it).
func (a *Archive) Settle(question string, docs ...string) (*ArchiveAnswer, error) {
	in := commands.SettleIn{Question: question, Documents: docs}
	if err := in.Check(); err != nil {
		return nil, fmt.Errorf("settle: %w: %v", ErrBadQuestion, err)
	}
	var res *commands.SettleOut
	err := a.read(func() (err error) {
		res, err = commands.Settle(a.db, in, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	c, rec := res.Settlement, res.Receipt
	out := &ArchiveAnswer{Status: string(c.Result.ResultStatus()), JSON: db.SettleResult(c), Receipt: rec.Encode()}
	for _, d := range c.Participants() {
		out.Documents = append(out.Documents, document(d))
	}
	return out, nil
}

// Verdict is the outcome of Verify.
type Verdict string

// Verdicts, with the exit codes `chronicle verify` gives them.
const (
	Valid       Verdict = "VALID"       // 0: the receipt replays to the same result on the same bytes
	Invalid     Verdict = "INVALID"     // 1: malformed, or the archive no longer gives that result
	Unsupported Verdict = "UNSUPPORTED" // 3: a receipt kind this version cannot replay (V1 QUERY)
)

// Verify replays a receipt against the archive, as `chronicle verify`
// and the MCP verify tool do (commands.Verify): an archive receipt
// (ingest, query, claim, find in a document), a set receipt (find across
// the archive, entity, settle) or an original casper-chronicle receipt of
// an imported store (given as bytes, it is checked against the store
// imported into the archive; the CLI, given the receipt's file, checks the
// .chronicle file beside it). The error says why a receipt is INVALID; when the
// archive could not be read at all (ErrLocked) the verdict is "".
func (a *Archive) Verify(rec []byte) (Verdict, error) {
	p := commands.ParseReceipt(commands.VerifyIn{Receipt: string(rec)})
	if v, ok := p.Malformed(); ok {
		return Invalid, v.Why // no lock needed
	}
	var v commands.Verified
	replayed := false
	err := a.read(func() error {
		replayed = true
		v = p.Replay(func() (*db.Archive, error) { return a.db, nil })
		return nil
	})
	if !replayed {
		// The lock was not had: the receipt was not replayed, and is
		// neither VALID nor INVALID.
		return "", err
	}
	if v.Why != nil && v.Outcome == receipt.Invalid {
		return Invalid, v.Why
	}
	return Verdict(v.Outcome.String()), v.Why
}

// ClaimsReport is a claims check: one claim-verification row per claim.
type ClaimsReport struct {
	// Rows are the strict claim-verification rows (engine/claimcheck/README.md
	// §4), canonical JSON, one per claim line in order, without newlines.
	Rows [][]byte
	// Reused: the same claims file was checked before; nothing new was
	// kept and Rows are the kept ones.
	Reused bool
}

// CheckClaims compares an agent's declared claims (a claims file, JSON
// Lines: engine/claimcheck/README.md §2) with the archive's results and keeps the rows in the
// archive. A refused file changes nothing. It holds the exclusive lock for
// the whole check, as `chronicle claims check` does: the rows it keeps are
// decided on the archive they are kept in.
func (a *Archive) CheckClaims(claims []byte) (*ClaimsReport, error) {
	var rep *db.ClaimReport
	err := a.write(func() (err error) {
		rep, err = a.db.CheckClaims(claims)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claims: %w", err)
	}
	return &ClaimsReport{Rows: rep.Check.Rows, Reused: rep.Reused}, nil
}
