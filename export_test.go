package chronicle

// SetWritingForTest makes a call fn in each write that holds the exclusive
// lock for its whole call (CheckClaims), once the lock is taken: a test
// holds a writer in the middle of its write with it.
func SetWritingForTest(a *Archive, fn func()) { a.writing = fn }
