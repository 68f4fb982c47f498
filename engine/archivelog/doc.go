// Package archivelog is the archive's append-only log, as bytes: the
// canonical encoding of its leaves (each change to what the archive
// holds), the C2SP tlog-checkpoint that names a tree of them, signed as a
// C2SP signed note, and the proof bundle that lets anyone check offline
// that a leaf is in the tree a signed checkpoint names.
//
// The tree is RFC 6962's, as golang.org/x/mod/sumdb/tlog implements it
// for the Go checksum database; this package hashes nothing by hand.
// Storing the tree is the archive's business (package db); this package is
// pure: no files, no clock. FORMAT.md describes every byte.
package archivelog
