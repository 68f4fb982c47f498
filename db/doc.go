// Package db is the Chronicle archive: one bbolt file holding many
// documents, each kept so that its canonical CASPER-CHRON store can be
// rebuilt byte for byte, plus the receipts the archive issued.
//
// # Basics
//
// Open opens (or creates) an archive with a lock timeout; a second writer
// gets ErrLocked instead of waiting. Ingest adds one document in one write
// transaction: a document that fails leaves the archive exactly as it was.
// IngestFiles commits many prepared files in one transaction (a batch's
// group), and gives each the outcome it would have had alone. IngestPaths
// is the whole batch every front-end runs (the CLI, the REPL, the Go API):
// it walks the paths (WalkPaths), prepares the files on several cores,
// commits them in groups and reports each path's typed outcome once its
// group has committed, leaving rendering to the caller.
//
// # Cancellation
//
// The long operations take a context.Context first: IngestPaths, Check
// and CheckWith, Reindex and ReindexWith. When it ends they stop at the
// next document boundary (a batch commits the group it gathered, a rebuild
// keeps its mark for the next open) and return an error that is errors.Is
// ErrInterrupted and the context's cause; nothing is left half-written.
// Documents are content-addressed by the SHA-256 of their bytes; the paths
// they were ingested from (and names given by the user) are aliases that
// Resolve turns back into a document. Store rebuilds the canonical store of
// a document and re-hashes everything it read.
//
// # Layout
//
// FORMAT.md, beside this file, describes the file byte by byte: every
// bucket with its keys and values, what each digest and seal covers and
// where it is checked, the schema versions and their upgrades, and the
// lock and commit model (format_doc_test.go holds it to the code).
//
// The source is cut into fixed-size chunks, each its own compressed frame, so that
// one evidence span can be re-read without decompressing the whole
// document.
//
// # Caveats
//
// Corruption is never answered around: every read of a document re-hashes
// what it decompressed against the digests in its record (whole documents
// against their SHA-256, single chunks against the chunk digests of the
// line index, evidence spans against their span digests) and returns
// ErrCorrupt naming the document.
//
// bbolt checksums no page, and says what is wrong with a file in its own
// words or by panicking. db turns both into one typed error, DamageError,
// whose Kind front-ends branch on (errors.As) and whose text is the one
// line the user sees: Open classifies bbolt's refusals (header pages that
// do not check, a file too short for them) and what it finds itself (a
// file cut inside its pages, one damaged header page, a path that is no
// regular file); the reads that run on db's own goroutines (find, entity,
// the verification of set receipts, the kept receipts) recover a damaged
// page's panic into it; and Guard runs a front-end's call (a CLI or REPL
// command, an MCP tool call, a method of the Go API) so that a panic or
// fault anywhere else in it ends the same way. The errors.Is sentinels
// stay: a DamageError is also ErrDamaged and ErrCorrupt, or ErrNotArchive
// for a file whose header pages do not make it an archive.
//
// A page tree that loops is the one damage no recover reaches: the search
// recurses until the runtime ends the process. WatchStack, started by the
// programs that own their process (the chronicle command, chronicle-mcp),
// ends it first, with the archive's line and exit 1 (stackwatch.go says
// why a library does not start it).
package db
