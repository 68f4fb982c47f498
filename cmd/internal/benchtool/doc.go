// Package benchtool holds what the benchmark commands (cmd/benchreal,
// cmd/benchscale, cmd/benchserve) share: reading GNU .mo translation files
// as text, measuring a child command's peak RSS through a small helper
// process, picking query terms from a corpus's document frequencies and
// the entities with the most events, and describing the machine (cores,
// CPU model, Go version, load).
package benchtool
