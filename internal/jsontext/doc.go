// Package jsontext writes text as a JSON string, byte for byte as
// json.Marshal writes a Go string (HTML escaping, \u2028 and \u2029, and
// invalid UTF-8 as \ufffd included), without building the string: Write
// takes the text in pieces (a document line as the archive stores it,
// possibly cut inside a character) and Append encodes into a reused
// buffer.
//
// It is apart from package repl, whose `show --json` streams lines that
// can be megabytes long, because it is a copy of encoding/json's rules
// that must never drift from them: alone, its tests and FuzzAppend hold
// it to json.Marshal on any bytes and any cut, and nothing else in the
// front-end is in the way of reading it.
package jsontext
