package db

import "runtime/debug"

// Guard runs fn, a call of a front-end on the archive at path (a CLI or
// REPL command, an MCP tool call, a method of the Go API), so that damage
// met anywhere in it ends as the one DamageError naming the archive:
//
//   - the archive is memory-mapped, and a damaged page can point bbolt
//     outside the mapping: a fault, which without SetPanicOnFault ends the
//     process; with it, a panic;
//   - bbolt checksums no page: a damaged one can make it index out of
//     range or fail one of its assertions, a panic;
//   - a panic in fn is recovered into a DamageError of kind
//     PageUnreadable (its text, Go's or bbolt's, is only its cause);
//   - while fn runs, the stack watch (stackwatch.go), when the program
//     started it (WatchStack), knows that a runaway recursion is a search
//     through a looping page tree of this archive.
//
// Guard covers fn's goroutine only: SetPanicOnFault and recover act on
// the goroutine that calls them. db's own workers (find, entity, the
// verification of set receipts, the kept receipts) recover on theirs
// (recoverPage) and return their DamageError as an error.
//
// Guard turns any panic into damage, a bug of Chronicle's too: a read of
// an archive has nothing else that panics, and the user is better served
// by one line naming the archive and `chronicle check` (which finds what
// is damaged, or finds nothing, which points at the bug) than by a stack
// trace.
func Guard(path string, fn func() error) (err error) {
	defer watching(path)()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = unreadable(path, "", r)
		}
	}()
	return fn()
}

// GuardOpen opens the archive at path with opts for fn alone, under
// Guard, and closes it before it returns: a front-end's call that holds
// no lock once it is done (an MCP tool call, a request of `chronicle
// serve`).
func GuardOpen(path string, opts Options, fn func(a *Archive) error) error {
	return Guard(path, func() error {
		a, err := Open(path, opts)
		if err != nil {
			return err
		}
		defer a.Close()
		return fn(a)
	})
}

// recoverPage, deferred by a read that runs on a worker goroutine (after
// SetPanicOnFault), turns its panic into a DamageError naming what it
// read (where) in *err. It must be deferred itself: recover works only in
// the deferred call.
func (a *Archive) recoverPage(where func() string, err *error) {
	if r := recover(); r != nil {
		*err = unreadable(a.path, where(), r)
	}
}
