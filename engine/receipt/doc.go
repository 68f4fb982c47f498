// Package receipt writes, parses and verifies the integrity receipts of the
// original tool (CONTRACT 4): seven ASCII lines binding a store path, a question,
// the store and document digests and the digest of the exact result bytes.
//
// # Basics
//
// New builds a receipt for a store and a result; Receipt.Encode renders its
// canonical bytes. Parse reads receipt bytes with every structural rule of
// CONTRACT 4.1 (and the decoding of CONTRACT 4.2 step 1). Verify runs the semantic
// checks of CONTRACT 4.2 in their exact order and says VALID, INVALID or
// UNSUPPORTED.
//
// # Caveats
//
// The package is pure: the caller reads the store file named by the receipt
// and hands its bytes to Verify, and supplies the query and find replays, so
// the same verification serves the file-based command and the archive.
// A receipt proves integrity and replayability, never that a document is true.
package receipt
