// Package termtext measures and lays out text for a terminal: the columns
// a string takes (Width: wide characters two, combining marks none, TABs
// to the next stop, colour escapes nothing), where to cut it (CutAt,
// FirstCells, LastCells), how many rows it fills (ScreenRows), and how to
// wrap a line of a readable view to a width with a hanging indent that
// keeps a table's columns (FitLine, FitLineIndent, and Writer, which does
// it line by line as output streams through).
//
// It is apart from package repl because these are pure functions of text
// and a width, with rules of their own (which column a continuation line
// hangs under, when a path gets a line of its own rather than being cut)
// that are read and tested without a terminal, an Env or a command, and
// fuzzed on any text (FuzzFitLine): document text and file names reach
// them.
//
// Deciding the width (the terminal's, $COLUMNS, help's 80 columns) and
// whether to colour stays in repl (textWidth, colour, fitted), as does
// what to show of a document (sanitize) and the tables of .mode table.
package termtext
