package db

import (
	"errors"
	"fmt"
	"golang.org/x/mod/sumdb/note"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/casper-chronicle/chronicle/platform"

	bolt "go.etcd.io/bbolt"
)

// DefaultPath is the archive used when neither --db nor CHRONICLE_DB is set.
const DefaultPath = "chronicle.db"

// LockTimeout bounds the wait for another process's lock when Options
// give none: a reader waits for a writer's commit, a writer for the
// readers in the archive (`--wait`, CHRONICLE_WAIT).
const LockTimeout = 5 * time.Second

var (
	bucketMeta     = []byte("meta")
	bucketDocs     = []byte("docs")
	bucketChunks   = []byte("chunks")
	bucketEvents   = []byte("events")
	bucketNames    = []byte("names")
	bucketReceipts = []byte("receipts")
	keySchema      = []byte("schema_version")
)

// Errors of opening an archive.
var (
	// ErrLocked: another process holds the archive.
	ErrLocked = errors.New("archive is in use by another process")
	// ErrNewerSchema: the archive was written by a newer Chronicle.
	ErrNewerSchema = errors.New("archive was written by a newer version of Chronicle")
	// ErrNotArchive: the file is not a Chronicle archive.
	ErrNotArchive = errors.New("not a Chronicle archive")
	// ErrNoArchive: a read-only open found no archive file.
	ErrNoArchive = errors.New("no archive at this path")
	// ErrNeedsUpgrade: a read-only open found an archive of an older
	// schema (or an unfinished rebuild of its indexes), which is read only
	// once upgraded, and the file cannot be written.
	ErrNeedsUpgrade = errors.New("it needs an upgrade before it is read, and cannot be written here")
)

// Archive is an open archive file.
type Archive struct {
	path string
	bolt *bolt.DB // nil while a writer has released the archive (Release)
	opts Options
	// chunkSize, when set, replaces ChunkSize for new documents (tests of
	// archives written before ChunkSize changed).
	chunkSize int
	// yielded is when a batch (ingest, check) last left the archive free
	// for long enough that a waiting process got its turn (yield).
	yielded time.Time
	// released is when Release last let go of the archive.
	released time.Time
	// UpgradedFrom is the schema version the archive had before Open
	// upgraded it (0 when no upgrade ran).
	UpgradedFrom int
	reindexed    bool        // an upgrade step already started a rebuild of the indexes
	batch        *termBatch  // the grams of a batch waiting for the term index (BeginBatch)
	enc          lazyEncoder // codecs.go
	dec          lazyDecoder
	signer       note.Signer   // signs the log's checkpoints (LogSigner); nil: left unsigned
	verifier     note.Verifier // the key check holds the signed checkpoint to (LogVerifier)
}

// Options tune Open.
type Options struct {
	// ReadOnly opens with a shared lock; the file must exist. Readers do not
	// block each other but wait for (and block) a writer.
	ReadOnly bool
	// MustExist refuses to create a missing archive (ErrNoArchive).
	MustExist bool
	// Timeout overrides LockTimeout.
	Timeout time.Duration
	// WaitOption is what the caller sets to wait longer than Timeout,
	// named in ErrLocked's message: the CLI's and the MCP server's
	// `--wait` when empty; the Go API names its Options.LockTimeout.
	WaitOption string
}

// Open opens the archive at path, creating it unless opts.ReadOnly. A lock
// held by another process yields ErrLocked after the timeout.
func Open(path string, opts Options) (*Archive, error) {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = LockTimeout
	}
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	if opts.MustExist && !opts.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, ErrNoArchive)
		}
	}
	if opts.ReadOnly {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, ErrNoArchive)
		}
		if st.Size() == 0 { // bbolt would try to initialise it through a read-only descriptor
			return nil, fmt.Errorf("archive %s: %w: the file is empty", path, ErrNotArchive)
		}
	}
	if !opts.ReadOnly {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			if err := create(path); err != nil {
				return nil, err
			}
		}
	}
	b, err := openBolt(path, opts.ReadOnly, timeout, opts.WaitOption)
	if err != nil {
		return nil, err
	}
	a := &Archive{path: path, bolt: b, opts: opts}
	if err := a.initSchema(opts); err != nil {
		a.closeCodecs()
		b.Close()
		return nil, err
	}
	if a.bolt == nil { // upgraded by a brief write open; reopen read-only
		a.closeCodecs()
		return Open(path, opts)
	}
	if !opts.ReadOnly {
		if err := a.foldLeftovers(); err != nil {
			a.Close()
			return nil, err
		}
		if err := a.packLeftovers(); err != nil {
			a.Close()
			return nil, err
		}
	}
	return a, nil
}

// create makes a new archive at path, private to its owner (0600: the
// documents are evidence), and never leaves an empty or half-initialised
// file there: the archive is built and synced under a temporary name in
// the same directory, then linked to path, which fails if another process
// created it meanwhile (then that archive is used).
func create(path string) error {
	dir, base := filepath.Split(path)
	removeAbandoned(dir, base)
	tmp, err := os.CreateTemp(dir, fmt.Sprintf(".%s.creating-%d-", base, os.Getpid()))
	if err != nil {
		return createError(path, err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("archive %s: %w", path, err)
	}
	tmp.Close()
	a, err := Open(name, Options{})
	if err != nil {
		return fmt.Errorf("archive %s: cannot create it: %w", path, err)
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	if err := os.Link(name, path); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync() // make the new name durable, as bbolt made the file
		d.Close()
	}
	return nil
}

// createError explains a failed creation of the archive at path by the
// archive and its directory: the temporary file that failed is an
// implementation detail the user never named.
func createError(path string, err error) error {
	dir := filepath.Dir(path)
	var pe *os.PathError
	if !errors.As(err, &pe) {
		return fmt.Errorf("archive %s: cannot create it: %w", path, err)
	}
	f := &createFailure{cause: &os.PathError{Op: "create", Path: path, Err: pe.Err}}
	switch {
	case errors.Is(pe.Err, os.ErrPermission), errors.Is(pe.Err, syscall.EROFS):
		f.msg = fmt.Sprintf("archive %s: cannot create it: the directory %s is not writable (%v)", path, dir, pe.Err)
	case errors.Is(pe.Err, os.ErrNotExist):
		f.msg = fmt.Sprintf("archive %s: cannot create it: the directory %s does not exist", path, dir)
	default:
		f.msg = fmt.Sprintf("archive %s: cannot create it in %s: %v", path, dir, pe.Err)
	}
	return f
}

// createFailure is a failed creation of an archive. It unwraps to a path
// error of the archive's own path, not the temporary file's, so that
// errors.Is finds the cause (os.ErrPermission) and front-ends that name
// the file of a path error (the CLI's JSON "file") name the archive.
type createFailure struct {
	msg   string
	cause *os.PathError
}

func (e *createFailure) Error() string { return e.msg }
func (e *createFailure) Unwrap() error { return e.cause }

// removeAbandoned deletes the temporary files of creations whose process
// is gone (killed while it created the archive); a live creator's is kept.
func removeAbandoned(dir, base string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "."+base+".creating-*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), "."+base+".creating-")
		field, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(field)
		if err != nil || !ok {
			continue
		}
		if !platform.ProcessAlive(pid) {
			os.Remove(m)
		}
	}
}

// openBolt opens the bbolt file, waiting up to timeout for its lock;
// ErrLocked's message tells how to wait longer with waitOption (Options).
func openBolt(path string, readOnly bool, timeout time.Duration, waitOption string) (*bolt.DB, error) {
	// bbolt reads the freelist page while it opens, through the mapping:
	// in a file truncated before that page the read is a SIGBUS that no
	// recover catches, so the length the header pages promise is checked
	// first (checkFileSize checks it again in the opened archive).
	if err := checkTruncated(path); err != nil {
		return nil, err
	}
	b, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: timeout, ReadOnly: readOnly, FreelistType: bolt.FreelistMapType})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		holder := "another process"
		if h := platform.LockHolder(path); h != "" {
			holder = h
		}
		if waitOption == "" {
			waitOption = "--wait"
		}
		return nil, fmt.Errorf("archive %s: %w: %s holds it (waited %s; try again when it finishes, or wait longer with %s)", path, ErrLocked, holder, timeout, waitOption)
	case err != nil && openDamage(err) != 0:
		return nil, &DamageError{Path: path, Kind: openDamage(err), Err: err}
	case !readOnly && (errors.Is(err, syscall.EROFS) || errors.Is(err, os.ErrPermission)):
		return nil, fmt.Errorf("archive %s cannot be written here (%w); reads work, answers without --keep among them", path, err)
	case err != nil:
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	b.AllocSize = allocSize(b)
	return b, nil
}

// allocSize is how far ahead of its pages bbolt grows the file (16 MiB by
// default, with a truncate and fsync each time): about 3% of the file, so
// the slack stays a small part of any archive while a growing archive
// grows (and syncs) about 32 times per doubling; at least 1 MiB, at most
// 8 MiB.
func allocSize(b *bolt.DB) int {
	size := 0
	b.View(func(tx *bolt.Tx) error {
		size = int(tx.Size())
		return nil
	})
	return min(max(size/32, 1<<20), 8<<20)
}

// Release lets other processes in: it closes the file and its lock until
// the next Ingest, which takes a shared lock to look the document up and
// the exclusive lock only for its commit, and releases both again. A batch
// writer releases between documents, so readers wait at most one commit.
// Only Ingest may be called on a released archive (and Close), and any
// method within Hold, which takes the lock for its call.
func (a *Archive) Release() error {
	if a.bolt == nil {
		return nil
	}
	err := a.bolt.Close()
	a.bolt = nil
	a.released = time.Now()
	return err
}

// yieldEvery and yieldFor: a batch that releases the archive between its
// steps leaves it free for yieldFor once every yieldEvery. bbolt takes
// its lock by polling every 50 ms, so a waiter may miss the short gaps
// between two steps; a pause longer than its poll lets it in, and bounds
// its wait to about half a second plus one commit (for about an eighth
// more time in a long batch).
const (
	yieldEvery = 500 * time.Millisecond
	yieldFor   = 60 * time.Millisecond
)

// yield pauses a released archive for yieldFor when yieldEvery has passed
// since the last pause, unless it has been free that long already since
// its last Release.
func (a *Archive) yield() {
	if a.bolt != nil {
		return
	}
	now := time.Now()
	if !a.released.IsZero() && now.Sub(a.released) >= yieldFor {
		// Free for a pause's length already (a caller idle between its
		// calls, as a Go program is): a waiter had its turn.
		a.yielded = now
		return
	}
	if a.yielded.IsZero() {
		a.yielded = now
		return
	}
	if now.Sub(a.yielded) >= yieldEvery {
		time.Sleep(yieldFor)
		a.yielded = time.Now()
	}
}

// reacquire reopens a released archive, read-only or for writing, and
// checks that its schema is still the one this build writes.
func (a *Archive) reacquire(readOnly bool) error {
	timeout := a.opts.Timeout
	if timeout == 0 {
		timeout = LockTimeout
	}
	if !readOnly && a.opts.ReadOnly {
		// A handle opened read-only stays one: its writes fail as they
		// did before it was released, rather than taking the writer's lock.
		return fmt.Errorf("archive %s: %w", a.path, bolt.ErrDatabaseReadOnly)
	}
	if err := checkRegular(a.path); err != nil { // replaced while released
		return err
	}
	b, err := openBolt(a.path, readOnly, timeout, a.opts.WaitOption)
	if err != nil {
		return err
	}
	err = b.View(func(tx *bolt.Tx) error {
		v, err := readSchema(a.path, tx)
		if err == nil && v != SchemaVersion {
			err = fmt.Errorf("archive %s: %w: schema %d changed while it was released", a.path, ErrNotArchive, v)
		}
		return err
	})
	if err != nil {
		b.Close()
		return err
	}
	a.bolt = b
	return nil
}

// Path is the file the archive was opened from.
func (a *Archive) Path() string { return a.path }

// Close releases the file and its lock.
// A batch still open is ended first (EndBatch); its error is returned.
func (a *Archive) Close() error {
	err := a.EndBatch()
	a.closeCodecs()
	if a.bolt == nil { // released
		return err
	}
	return errors.Join(err, a.bolt.Close())
}

func (a *Archive) closeCodecs() {
	a.enc.close()
	a.dec.close()
}
