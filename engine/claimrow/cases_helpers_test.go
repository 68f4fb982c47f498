package claimrow

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Helpers that build table rows by editing a valid row, as Go values.

// jv parses JSON text that the test itself wrote; a typo panics at once.
func jv(text string) Value {
	v, err := ParseLine([]byte(text), 1<<20)
	if err != nil {
		panic(fmt.Sprintf("test JSON %q: %v", text, err))
	}
	return v
}

func sv(s string) Value          { return StringValue(s) }
func iv(n int64) Value           { return IntValue(n) }
func bv(b bool) Value            { return Value{Kind: Bool, Bool: b} }
func nullValue() Value           { return Value{Kind: Null} }
func rep(s string, n int) string { return strings.Repeat(s, n) }

// edit changes a row; edits never modify their input.
type edit func(Value) Value

func splitPath(path string) []string { return strings.Split(path, ".") }

func setPath(v Value, path []string, x Value) Value {
	if v.Kind != Object {
		panic(fmt.Sprintf("set %v: not an object", path))
	}
	out := v
	out.Members = slices.Clone(v.Members)
	for i, m := range out.Members {
		if m.Key == path[0] {
			if len(path) == 1 {
				out.Members[i].Value = x
			} else {
				out.Members[i].Value = setPath(m.Value, path[1:], x)
			}
			return out
		}
	}
	if len(path) != 1 {
		panic(fmt.Sprintf("set %v: no key %q", path, path[0]))
	}
	out.Members = append(out.Members, Member{path[0], x})
	return out
}

func delPath(v Value, path []string) Value {
	if v.Kind != Object {
		panic(fmt.Sprintf("del %v: not an object", path))
	}
	out := v
	out.Members = slices.Clone(v.Members)
	for i, m := range out.Members {
		if m.Key == path[0] {
			if len(path) == 1 {
				out.Members = slices.Delete(out.Members, i, i+1)
			} else {
				out.Members[i].Value = delPath(m.Value, path[1:])
			}
			return out
		}
	}
	panic(fmt.Sprintf("del %v: no key %q", path, path[0]))
}

// set sets the dotted path (creating the last key when absent).
func set(path string, x Value) edit {
	return func(v Value) Value { return setPath(v, splitPath(path), x) }
}

// setJ sets the dotted path to the JSON text.
func setJ(path, text string) edit { return set(path, jv(text)) }

// del deletes the dotted path, which must exist.
func del(path string) edit {
	return func(v Value) Value { return delPath(v, splitPath(path)) }
}

// withRule names the rule consistently: declaredRule, resolved.rule.id and
// the claim's provenance.
func withRule(id string) edit {
	return func(v Value) Value {
		v = set("declaredRule", sv(id))(v)
		v = set("resolved.rule.id", sv(id))(v)
		return set("resolved.claim.provenance", sv("rule "+id))(v)
	}
}

// withResult names the result consistently: declaredResult,
// resolved.resultId and the evidence's provenance.
func withResult(id string) edit {
	return func(v Value) Value {
		v = set("declaredResult", sv(id))(v)
		v = set("resolved.resultId", sv(id))(v)
		return set("resolved.evidence.provenance", sv("result "+id))(v)
	}
}

// withValue sets declaredValue and the claim's value together.
func withValue(x Value) edit {
	return func(v Value) Value {
		return set("resolved.claim.value", x)(set("declaredValue", x)(v))
	}
}

// withSubject sets the subject of the evidence and of the claim together.
func withSubject(x Value) edit {
	return func(v Value) Value {
		return set("resolved.claim.subject", x)(set("resolved.evidence.subject", x)(v))
	}
}

// withPredicate sets the predicate of both assertions.
func withPredicate(p string) edit {
	return func(v Value) Value {
		return set("resolved.claim.predicate", sv(p))(set("resolved.evidence.predicate", sv(p))(v))
	}
}

// withOutcome sets outcome and reason.
func withOutcome(outcome, reason string) edit {
	return func(v Value) Value {
		return set("reason", sv(reason))(set("outcome", sv(outcome))(v))
	}
}

func apply(v Value, edits []edit) Value {
	for _, e := range edits {
		v = e(v)
	}
	return v
}

// comparedText is a valid compared row (contradicted / conflict), in
// canonical form.
const comparedText = `{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/agent/run-1/2",` +
	`"declaredOn":"answer","declaredResult":"claim-result/agent/run-1/1","declaredRule":"chronicle.settlement.settled",` +
	`"declaredValue":"30/1","iteration":0,"kind":"claim-verification","outcome":"contradicted","reason":"conflict",` +
	`"resolved":{"claim":{"predicate":"settled","provenance":"rule chronicle.settlement.settled","stratum":"asserted",` +
	`"subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"30/1"},"coverage":{"checked":["document a4b3"]},` +
	`"evidence":{"predicate":"settled","provenance":"result claim-result/agent/run-1/1","stratum":"asserted",` +
	`"subject":{"id":"debt/Alice/Bob","kind":"entity"},"value":"40/1"},"resultId":"claim-result/agent/run-1/1",` +
	`"rule":{"id":"chronicle.settlement.settled","version":"1"},` +
	`"scope":{"document":"a4b3","question":"Did Alice repay Bob?","receipt":"ab12"}},"standing":"fact"}`

// unverifiedText is a valid unverified row (malformed-check), in canonical
// form: malformed-check needs neither a rule nor a result.
const unverifiedText = `{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/agent/run-1/1",` +
	`"declaredOn":"answer","declaredValue":"x","iteration":0,"kind":"claim-verification",` +
	`"outcome":"unverified","reason":"malformed-check","standing":"fact"}`

// compared returns the valid compared row with the edits applied.
func compared(edits ...edit) Value { return apply(jv(comparedText), edits) }

// unverified returns the valid unverified row with the edits applied.
func unverified(edits ...edit) Value { return apply(jv(unverifiedText), edits) }

// cl is the canonical line of a value.
func cl(v Value) []byte { return Canonical(v) }

const rawSentinel = "@@raw@@"

// rawAt writes v canonically with the value at path replaced by raw JSON
// text (which may break the JSON rules on purpose).
func rawAt(v Value, path, raw string) []byte {
	b := Canonical(setPath(v, splitPath(path), sv(rawSentinel)))
	return replaceOnce(b, `"`+rawSentinel+`"`, raw)
}

// replaceOnce replaces old, which must occur exactly once.
func replaceOnce(b []byte, old, new string) []byte {
	if n := bytes.Count(b, []byte(old)); n != 1 {
		panic(fmt.Sprintf("replaceOnce: %q occurs %d times", old, n))
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

// nested returns depth levels of nested arrays around 0.
func nested(depth int) string { return rep("[", depth) + "0" + rep("]", depth) }

// objectOfKeys returns {"k1":1,...,"kN":N}.
func objectOfKeys(n int) Value {
	v := ObjectValue()
	for i := 1; i <= n; i++ {
		v.Members = append(v.Members, Member{fmt.Sprintf("k%d", i), iv(int64(i))})
	}
	return v
}

// stringsArray returns a JSON array of n copies of s.
func stringsArray(s string, n int) Value {
	v := ArrayValue()
	for range n {
		v.Items = append(v.Items, sv(s))
	}
	return v
}

// arrayOf returns a JSON array of n copies of x.
func arrayOf(x Value, n int) Value {
	v := ArrayValue()
	for range n {
		v.Items = append(v.Items, x)
	}
	return v
}

// padLeft prefixes spaces so that the line is exactly n bytes.
func padLeft(b []byte, n int) []byte {
	if len(b) > n {
		panic("padLeft: line already too long")
	}
	return append(bytes.Repeat([]byte(" "), n-len(b)), b...)
}
