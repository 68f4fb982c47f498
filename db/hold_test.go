package db_test

import (
	"errors"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// TestHold: Hold takes a released archive's lock for its function alone,
// shared or exclusive, beside a reader in another process (holdArchive);
// a lock it cannot have is ErrLocked after the timeout, with the function
// not run; the archive is released again however the function ends; an
// archive not released keeps its lock; a read-only archive never writes.
func TestHold(t *testing.T) {
	g := loadGolden(t)[0]
	path := newPath(t)
	a := openArchive(t, path)
	_, err := a.Ingest(g.Input, goldenTime, g.DocName())
	require.NoError(t, err)
	require.NoError(t, a.Close())

	failed := errors.New("fn failed")
	for _, tc := range []struct {
		name     string
		opts     db.Options
		release  bool // Release before Hold
		readOnly bool // Hold's argument
		fn       func(a *db.Archive) error
		want     error // nil: fn ran and succeeded
		ran      bool  // fn ran
	}{
		{"a read beside readers", db.Options{}, true, true, func(a *db.Archive) error {
			docs, err := a.Docs()
			require.Len(t, docs, 1)
			return err
		}, nil, true},
		{"a failing read", db.Options{}, true, true, func(*db.Archive) error { return failed }, failed, true},
		{"a write waits for the readers", db.Options{Timeout: 200 * time.Millisecond}, true, false,
			func(*db.Archive) error { return nil }, db.ErrLocked, false},
		{"a read-only archive is held read-only", db.Options{ReadOnly: true}, true, false, func(a *db.Archive) error {
			_, err := a.Ingest([]byte("x\n"), goldenTime, "x.txt")
			return err
		}, bolt.ErrDatabaseReadOnly, true},
		{"not released", db.Options{ReadOnly: true}, false, true, func(a *db.Archive) error {
			_, err := a.Docs()
			return err
		}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := openArchive(t, path, tc.opts)
			if tc.release {
				require.NoError(t, a.Release())
			}
			stop := holdArchive(t, path, true) // another process reads meanwhile
			defer stop()
			ran := false
			err := a.Hold(tc.readOnly, func() error {
				ran = true
				require.False(t, a.Released(), "fn runs with the lock")
				return tc.fn(a)
			})
			if tc.want == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.want)
			}
			require.Equal(t, tc.ran, ran, "fn ran")
			require.Equal(t, tc.release, a.Released(), "released as before Hold")
			require.NoError(t, a.Close())
		})
	}
}
