// Package fileio holds the file rules shared by both commands: bounded
// reads, exclusive creation that never overwrites and removes its partial
// file on failure, write-once receipts (CONTRACT 1.1), and verification of an
// original receipt file against the store file it names (CONTRACT 4).
package fileio
