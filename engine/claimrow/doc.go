// Package claimrow is the claim-verification row protocol (the strict
// saved-row format of the agentfootprint framework, written down below),
// and nothing else: it knows no archive.
//
// # Basics
//
// A row is one line of JSON Lines recording how one declared claim compared
// with a result. ReadRow is the strict saved-row reader of the
// agentfootprint framework (the seed), ported rule for rule and in its
// order, so the first failing rule rejects the row and names itself in
// words. ParseLine reads one line under the strict JSON line rules (no
// duplicate keys, no lone surrogates, integers only, bounded depth and
// size) into a Value; Canonical writes a Value as canonical JSON, so that
// a row's SHA-256 is stable. engine/claimcheck/README.md documents the
// rules (§2.1), canonical JSON (§4.2), identities (§4.3) and the row and
// its reader (§4.1, §4.4). EncodeIdentityField and
// DecodePresentIdentityField spell the fields of claim and result
// identities (`claim-verification/<ns>/<runId>/<ordinal>`) injectively.
// Row builds the rows Chronicle's checker writes.
//
// # Caveats
//
// String lengths are counted in UTF-16 code units wherever the seed
// compares a JavaScript string's length (UTF16Len); byte bounds are UTF-8
// bytes of the canonical form. The reader validates and detaches a
// recorded check: it never decides whether the claim is true, never looks
// at evidence and never repairs a row. Its bounds are the seed's, VALUE_BYTES
// among them (8192, the scope bound, as the seed derives it), so the seed's
// reader and this one accept the same rows.
package claimrow
