// Package benchtool holds what the benchmark commands (cmd/benchreal,
// cmd/benchscale) share: reading GNU .mo translation files as text, and
// measuring a child command's peak RSS through a small helper process.
package benchtool
