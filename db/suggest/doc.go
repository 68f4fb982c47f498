// Package suggest is the "did you mean" of Chronicle's errors: the names
// nearest to a misspelt command, flag or document name by edit distance,
// and the phrase that offers them. Both the command layer (repl) and the
// archive (db, for document names) use it; it lives under db, the lowest
// layer that needs it, and depends on nothing of Chronicle's.
package suggest
