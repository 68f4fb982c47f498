// Package shellwords cuts a command line into words with shell-like
// quoting (Split), writes a word so that Split gives it back (Quote), and
// reads a partly typed line for completion (Scan, Escape).
//
// It is apart from package repl because it is where untrusted text (a
// typed line, a script line, a -c argument) becomes arguments: a pure
// function of a string with rules of its own (written out in Split's
// comment), tested and fuzzed alone (FuzzSplit: Split never panics,
// Split(Quote(words)) gives the words back, Escape continues a word under
// any open quote), and read without the command table around it. It
// knows nothing of commands, terminals or archives.
package shellwords
