// Package find implements the lexical find of the Casper Chronicle contract
// (CONTRACT 11) and its result JSON (CONTRACT 5.3).
//
// # Basics
//
// A terms string is split at the ASCII separators SPACE TAB LF CR . , ; : ? !
// into 1..16 terms (duplicates kept). Every non-empty physical line of the
// source (CONTRACT 6.2) scores one point per term, with repetition, that occurs in
// it as a contiguous byte substring: case-sensitive, no word boundaries, no
// normalisation. Lines with a score of at least one match; the result counts
// all of them and lists the best eight by score descending, then by byte
// offset ascending.
//
// Find is the entry point of the find command: it returns the exact JSON line
// the original tool printed. Search returns the same result as a structure;
// NewQuery, Query.Search, SearchSource and Score let a caller split the terms
// once and search many documents (for instance a cross-archive index) with
// results byte-identical to Find.
//
// # Caveats
//
// The package is pure and never touches files. Sources are assumed to be
// strict UTF-8 text, as every loaded store's source is; SearchSource does not
// re-check them. Terms errors wrap ErrTerms; the command-line layer turns them
// into exit status 1. Invalid UTF-8 terms are rejected here too, although the
// command line catches them first (exit 2).
package find
