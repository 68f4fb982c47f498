// Package canonjson builds the hand-made compact JSON of the original tool
// (CONTRACT 5): fixed key order, no whitespace, plain decimal integers, and an
// exact string escaping that differs from encoding/json (lowercase \u00xx,
// DEL and non-ASCII raw, '/' raw). Results are compared byte for byte with
// golden files, so nothing here may be "equivalent JSON".
package canonjson
