package engine

// Unexported facts that engine/CONTRACT.md states, for contract_doc_test.go
// (package engine_test).
var (
	FixedEventSize = fixedEventSize
	MinEventRecord = minEventRecord
)

// NameReservedWords returns the reserved words of the Arabic name rule
// (CONTRACT 7.4).
func NameReservedWords() map[string]bool { return nameReservedWords }
