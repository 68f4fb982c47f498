// Package engine implements the canonical Casper Chronicle contract
// (the byte-level behaviour of the original casper-chronicle, pinned by the
// golden files in testdata/golden): strict text validity, physical lines, exact rationals,
// the three extraction grammars, event identities, the CASPER-CHRON-V1/V2
// store format, and integrity receipts.
//
// The contract is written down in engine/CONTRACT.md. Throughout the
// repository a comment citing "CONTRACT n" or "CONTRACT n.m" means section
// n (or n.m) of that document; engine/contract_doc_test.go holds the
// document's constants and examples to the code.
//
// # Basics
//
// Extract turns source bytes into events with a parser Profile (V2 for new
// stores, V1 for replaying legacy stores). NewStore and Store.Encode build the
// canonical store bytes; Load parses store bytes and accepts them only after
// every check of CONTRACT 3.3, including the canonical replay of the event table.
//
// # Caveats
//
// The package is pure: it never touches files, clocks or databases, so every
// result is a function of its inputs. Errors that reject a document are
// *ExtractError values naming the line, the byte offset and the rule; callers
// branch on the sentinel errors with errors.Is.
package engine
