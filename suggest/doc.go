// Package suggest is the "did you mean" of Chronicle's errors: the names
// nearest to a misspelt command, flag or document name by edit distance,
// and the phrase that offers them. Both the command layer (repl) and the
// archive (db, for document names) use it.
package suggest
