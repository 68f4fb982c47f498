// Package index keeps the two archive indexes inside the archive's bbolt
// file, written in the same transaction as their document.
//
// # Term index
//
// Lexical find is raw substring matching (SPEC 11), so the index must never
// miss a document the scan would find. It records, for every document, which
// byte n-grams (n = 1, 2, 3) occur in it, as zoekt and Google Code Search do
// with trigrams; terms shorter than three bytes use the smaller grams, so
// every term length is exact. A document is a candidate for a term when it
// holds every gram of the term; candidates are then searched for real, so
// false positives cost time, never correctness.
//
// Postings are bit-sliced by groups of 64 documents: the key
// group (u32 BE) ‖ n ‖ gram maps to a 64-bit bitmap of the group's documents
// holding the gram. Adding a document therefore rewrites only its own
// group's key range (bounded write amplification in the B+tree), and a
// query costs one lookup per gram per group.
//
// # Entity index
//
// Every event's subject and object, as exact bytes (never normalised or
// merged): name ‖ 0x00 ‖ document sequence (u64 BE) ‖ event index (u32 BE) ‖
// role. Store text fields never contain NUL, so the separator is safe.
package index
