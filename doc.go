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
// One process may hold an archive open for writing at a time; readers
// (Options.ReadOnly) share it and wait for a writer's commit up to
// Options.LockTimeout, then fail with ErrLocked. An Archive is safe for use
// by one goroutine at a time.
//
// The packages under db, engine and index are the implementation; their
// APIs may change between versions, this one is kept stable.
package chronicle
