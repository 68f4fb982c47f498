package db

import "fmt"

// Hold runs fn with the archive's lock taken for fn alone. A released
// archive (Release) is reacquired for fn, with the shared lock when
// readOnly, else the exclusive one, and released again however fn ends,
// so a front-end that keeps an archive open for long (the Go API) blocks
// other processes only while it reads or writes, as a CLI command that
// exits does. An archive that is not released runs fn as it is, holding
// the lock it already holds; so does a Hold within fn.
//
// Reacquiring waits up to the Options' Timeout and returns its error
// (ErrLocked naming the holder) without running fn. An archive opened
// with ReadOnly is always reacquired read-only: a write in fn fails as it
// would on the handle before Release.
func (a *Archive) Hold(readOnly bool, fn func() error) (err error) {
	if a.bolt != nil {
		return fn()
	}
	if err := a.reacquire(readOnly || a.opts.ReadOnly); err != nil {
		return err
	}
	defer func() {
		// Release closes the file; its error (rare) is reported only when
		// fn's is not, which says more.
		if rerr := a.Release(); rerr != nil && err == nil {
			err = fmt.Errorf("archive %s: releasing the lock: %w", a.path, rerr)
		}
	}()
	return fn()
}

// Released reports whether the archive is released (Release) and holds no
// lock until the next Hold or Ingest.
func (a *Archive) Released() bool { return a.bolt == nil }
