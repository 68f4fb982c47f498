// Package chronicle is Chronicle for Go programs: an embedded evidence
// database that keeps UTF-8 documents byte-exact in one archive file,
// extracts typed events with their exact evidence spans, answers narrow
// questions with proof, and verifies the receipts it issued.
//
// The API is small on purpose, and answers with the same code and bytes as
// the chronicle command:
//
//	a, err := chronicle.Open("evidence.db", nil) // created when missing
//	doc, err := a.IngestFile("loan.txt")         // byte-exact, content-addressed
//	ans, err := a.Query("loan.txt", "Did Ahmed repay Khalid?")
//	ans.Status  // SUPPORTED, PARTIAL, CONFLICT or UNKNOWN
//	ans.JSON    // the canonical result line, as the original tool prints it
//	a.Verify(ans.Receipt) // VALID while the archive holds the same bytes
//
// Every answer carries an integrity receipt (the bytes `chronicle verify`
// reads) binding the question, the document's canonical store and the
// exact result. A receipt proves integrity and replayability, not that a
// document is right: Chronicle never claims truth.
//
// An Archive holds no lock between calls, opened for writing or
// read-only: a program may keep one open for as long as it runs, beside
// the chronicle command, the MCP server and other programs, and they wait
// only for its calls, as for a CLI command. Each call takes the archive's
// lock for itself alone:
//
//   - Documents, Query, Claim, FindIn, Find, Entity, Settle and Verify take
//     the shared lock for the call (readers do not wait for each other);
//   - Ingest and IngestFile look the document up under the shared lock,
//     extract it holding no lock, and take the exclusive lock only for the
//     commit; IngestPaths (files and directories, as `chronicle ingest`)
//     takes it for each group of files it commits, and stops when its
//     context ends (ErrInterrupted);
//   - CheckClaims takes the exclusive lock for the whole check, as
//     `chronicle claims check` does;
//   - Open takes the exclusive lock (a read-only Open the shared one, and
//     the exclusive one only to upgrade an older schema) while it opens,
//     creates or upgrades the archive, then lets go.
//
// A call that needs a lock another process holds waits up to
// Options.LockTimeout (a read for a writer's commit, a write for the reads
// in progress), then fails with ErrLocked, having done nothing. Since the
// lock is let go between calls, another process may ingest between two
// calls: each answer's receipt binds the documents it ran over. Taking the
// lock per call reopens the file, some tens of microseconds a call. An
// Archive is safe for use by one goroutine at a time.
//
// A damaged archive is an error, never a panic: Open and every method
// run under the guard the chronicle command runs its commands under
// (db.Guard), and return a *DamageError (ErrDamaged) carrying the line
// the command prints. One damage only a process can stop: a page tree
// that loops sends a read into endless recursion; a program that owns
// its process may call WatchStack to end it with that line, as the
// chronicle command does.
//
// The packages under db, engine and index are the implementation; their
// APIs may change between versions, this one is kept stable.
package chronicle
