package db

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// DefaultPath is the archive used when neither --db nor CHRONICLE_DB is set.
const DefaultPath = "chronicle.db"

// SchemaVersion is the layout this package reads and writes.
const SchemaVersion = 1

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
	allBuckets     = [][]byte{bucketMeta, bucketDocs, bucketChunks, bucketEvents, bucketNames, bucketReceipts}
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
	enc  *zstd.Encoder
	dec  *zstd.Decoder
}

// Options tune Open.
type Options struct {
	// ReadOnly opens with a shared lock; the file must exist. Readers do not
	// block each other but wait for (and block) a writer.
	ReadOnly bool
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
	if opts.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("archive %s: %w", path, ErrNoArchive)
		}
	}
	b, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: timeout, ReadOnly: opts.ReadOnly, FreelistType: bolt.FreelistMapType})
	switch {
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("archive %s: %w (waited %s; try again when it finishes)", path, ErrLocked, timeout)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrVersionMismatch), errors.Is(err, bolt.ErrChecksum):
		return nil, fmt.Errorf("archive %s: %w: %v", path, ErrNotArchive, err)
	case err != nil:
		return nil, fmt.Errorf("archive %s: %w", path, err)
	}
	a := &Archive{path: path, bolt: b}
	if err := a.initSchema(opts.ReadOnly); err != nil {
		b.Close()
		return nil, err
	}
	a.enc, err = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false))
	if err == nil {
		a.dec, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("archive %s: zstd: %w", path, err)
	}
	return a, nil
}

// initSchema creates the buckets of a new archive and refuses unknown newer
// layouts.
func (a *Archive) initSchema(readOnly bool) error {
	check := func(tx *bolt.Tx) (bool, error) {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			// A bbolt file with foreign buckets is somebody else's database.
			empty := tx.ForEach(func([]byte, *bolt.Bucket) error { return ErrNotArchive }) == nil
			if !empty {
				return false, fmt.Errorf("archive %s: %w: it holds buckets but no Chronicle meta bucket", a.path, ErrNotArchive)
			}
			return true, nil
		}
		v, err := strconv.Atoi(string(meta.Get(keySchema)))
		if err != nil {
			return false, fmt.Errorf("archive %s: %w: bad schema_version %q", a.path, ErrNotArchive, meta.Get(keySchema))
		}
		if v > SchemaVersion {
			return false, fmt.Errorf("archive %s: %w (schema %d, this build reads up to %d); upgrade Chronicle",
				a.path, ErrNewerSchema, v, SchemaVersion)
		}
		return false, nil
	}
	if readOnly {
		return a.bolt.View(func(tx *bolt.Tx) error {
			fresh, err := check(tx)
			if fresh {
				return fmt.Errorf("archive %s: %w: no meta bucket", a.path, ErrNotArchive)
			}
			return err
		})
	}
	return a.bolt.Update(func(tx *bolt.Tx) error {
		fresh, err := check(tx)
		if err != nil || !fresh {
			return err
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte(strconv.Itoa(SchemaVersion)))
	})
}

// Path is the file the archive was opened from.
func (a *Archive) Path() string { return a.path }

// Close releases the file and its lock.
func (a *Archive) Close() error {
	a.enc.Close()
	a.dec.Close()
	return a.bolt.Close()
}
