package db

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// DefaultPath is the archive used when neither --db nor CHRONICLE_DB is set.
const DefaultPath = "chronicle.db"

// LockTimeout bounds the wait for another process's lock.
const LockTimeout = time.Second

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
)

// Archive is an open archive file.
type Archive struct {
	path string
	bolt *bolt.DB
	// UpgradedFrom is the schema version the archive had before Open
	// upgraded it (0 when no upgrade ran).
	UpgradedFrom int
	reindexed    bool // an upgrade step already started a rebuild of the indexes
	enc          *zstd.Encoder
	dec          *zstd.Decoder
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
}

// Open opens the archive at path, creating it unless opts.ReadOnly. A lock
// held by another process yields ErrLocked after the timeout.
func Open(path string, opts Options) (*Archive, error) {
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = LockTimeout
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
	b, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: timeout, ReadOnly: opts.ReadOnly, FreelistType: bolt.FreelistMapType})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		holder := "another process"
		if h := lockHolder(path); h != "" {
			holder = h
		}
		return nil, fmt.Errorf("archive %s: %w: %s holds it (waited %s; try again when it finishes)", path, ErrLocked, holder, timeout)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch), errors.Is(err, bolt.ErrChecksum):
		return nil, fmt.Errorf("archive %s: %w: %v", path, ErrNotArchive, err)
	case err != nil:
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	// bbolt grows the file AllocSize bytes ahead of its pages (16 MiB by
	// default): a quarter of that keeps a small archive's file near its
	// pages in use, for a truncate and fsync every 4 MiB of growth.
	b.AllocSize = 4 << 20
	a := &Archive{path: path, bolt: b}
	a.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err == nil {
		a.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)))
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("archive %s: zstd: %w", path, err)
	}
	// Schema upgrades may read documents, so the codecs come first.
	if err := a.initSchema(opts); err != nil {
		a.closeCodecs()
		b.Close()
		return nil, err
	}
	if a.bolt == nil { // upgraded by a brief write open; reopen read-only
		a.closeCodecs()
		return Open(path, opts)
	}
	return a, nil
}

// Path is the file the archive was opened from.
func (a *Archive) Path() string { return a.path }

// Close releases the file and its lock.
func (a *Archive) Close() error {
	a.closeCodecs()
	return a.bolt.Close()
}

func (a *Archive) closeCodecs() {
	a.enc.Close()
	a.dec.Close()
}
