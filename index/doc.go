// Package index keeps the archive's indexes (terms, lines, entities)
// inside its bbolt file, written in the same transaction as their document.
// Their keys and values, byte by byte, are in db/FORMAT.md; this package
// documentation says why they are built as they are.
//
// # Term index
//
// Lexical find is raw substring matching (CONTRACT 11), so the index must never
// miss a document the scan would find. It records, for every document, which
// byte n-grams (n = 1, 2, 3) occur in it, as zoekt and Google Code Search do
// with trigrams; terms shorter than three bytes use the smaller grams, so
// every term length is exact. A document is a candidate for a term when it
// holds every gram of the term; candidates are then searched for real, so
// false positives cost time, never correctness.
//
// Byte trigrams say little about text in a script of 2-byte characters
// (Arabic letters share two lead bytes), so the index also records every
// run of three UTF-8 characters holding a non-ASCII byte and no separator,
// hashed to 24 bits (gram kind 4); a term's own such runs must all be
// present too. A hash collision can only add a candidate.
//
// Postings are bit-sliced by groups of 64 documents: each gram of a group
// has a 64-bit bitmap of the group's documents holding it, with each
// document's count of lines holding it. The postings of the grams that
// share all bytes but the last are one bbolt value (a block; postings.go,
// db/FORMAT.md), so a group of English text
// is about 10,000 keys rather than 150,000. Adding documents rewrites only
// their group's key range (bounded write amplification in the B+tree), and
// a query costs one lookup per gram block per group. Each group's start
// entry marks the documents whose grams are in the postings: a batch
// ingest folds the grams of many documents into their group in one pass
// (FoldTerms) after committing them, and until then those documents are
// candidates for every query, so find
// stays exact while a batch runs or after one was interrupted.
//
// # Group summaries
//
// One level up, each super-group of 64 groups (4,096 documents) keeps the
// same blocks with a bitmap of its groups per gram (supers.go): a query
// intersects a term's grams there first and reads the postings only of
// the groups that may hold it, so an absent term costs one lookup per gram
// per 4,096 documents rather than per 64. A folded mark says below which
// document number everything is in both levels; the groups from there on
// are read the old way, so documents a batch has not folded yet stay
// candidates.
//
// # Packed super-groups
//
// Postings keyed group first put each group's blocks on pages of their
// own, so a term read across the archive touched a page per gram block
// per 64 documents. Once the folded mark passes a super-group its postings
// never change, and they are moved into one value per block key holding
// that block of each of its 64 groups, byte for byte (packs.go): a query
// reads one value per block per 4,096 documents, from consecutive pages.
// Packing happens once per super-group, in the fold that completes it,
// so ingest keeps writing only the last groups' postings.
//
// # Line index
//
// The term index says which documents can match; the line index says
// which lines do, without reading the document. For each document it keeps
// its dictionary of distinct tokens (maximal runs of bytes outside the
// CONTRACT 11 separator set) and, for each token, the numbers of the lines
// holding it. A find term holds no separator, so it occurs in a line
// exactly when it occurs inside one of the line's tokens: scoring a
// document is a substring search over its dictionary and a union of line
// lists (LineScorer), exact for every term length. The record also keeps
// the SHA-256 of every source chunk and the start offset of every 32nd
// line, so the few lines a result lists are read from their chunks alone
// and checked. Records are one value per document (BuildLines, ParseLines).
// The dictionary is cut into blocks, each with a Bloom filter of its
// tokens' code-point grams, so that a term decodes only the blocks that
// may hold it; the header, the locator and every block carry their own
// CRC-32C against accidental damage, checked when they are read; check
// rebuilds the records from the source and compares bytes.
//
// # Entity index
//
// Every event's subject and object, as exact bytes (never normalised or
// merged), one key each, with each event's evidence span kept beside them
// and a sealed count per name (keys and values: db/FORMAT.md). Store text
// fields never contain NUL, so the name can end at a 0x00 separator.
package index
