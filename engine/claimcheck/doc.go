// Package claimcheck reads claims files and decides each claim's row
// (the claims file and the outcome table of the claims checker), without
// an archive.
//
// # Basics
//
// ParseFile reads a claims file strictly: a header naming the namespace
// and runId, result lines (a document and a question or find terms) and
// claim lines (what an agent or analyst declared, on which result and
// under which rule). Any broken rule refuses the whole file with
// `line N: <field>: <reason>`. The caller resolves each result line
// against the archive into an Answer; Decide then applies the outcome
// table (README.md §3.2 in this directory) to one claim and returns its claimrow.Row.
//
// # Caveats
//
// Nothing is inferred: a claim is compared only on the rule it declares,
// with the result it declares. A claim that cannot be compared is
// unverified with a reason, never contradicted: a false accusation is
// worse than a miss. Numeric leniency (outcome row 9) applies to the
// numeric rules only and reads integers, decimals and N/D fractions
// exactly.
package claimcheck
