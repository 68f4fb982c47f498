package claimrow

import (
	"fmt"
	"slices"
	"strings"
)

// The value sets (engine/claimcheck/README.md §2.2 and §3.2).
var (
	StandingValues = []string{"fact", "open", "ruled-out", "noise"}
	// UnverifiedReasons is VERIFICATION_UNVERIFIED_REASONS.
	UnverifiedReasons = []string{"missing-check", "malformed-check", "ineligible-noise", "missing-result",
		"unresolved-result", "evidence-conflict", "not-asserted"}
)

// boundedText: a string of 1..TextBound UTF-16 units.
func boundedText(s string) bool {
	n := UTF16Len(s)
	return n >= 1 && n <= TextBound
}

// BoundedText is boundedText of a Value.
func BoundedText(v Value) bool { return v.Kind == String && boundedText(v.Str) }

// describe names a value for an error message.
func describe(v Value) string {
	switch v.Kind {
	case String:
		return fmt.Sprintf("%q", clip(v.Str))
	case Int:
		return fmt.Sprint(v.Int)
	case Bool:
		return fmt.Sprint(v.Bool)
	case Null:
		return "null"
	}
	return v.Kind.String()
}

// textProblem explains why v is not boundedText, or returns "".
func textProblem(v Value) string {
	switch {
	case v.Kind != String:
		return describe(v) + " is not a string"
	case v.Str == "":
		return "is empty"
	case UTF16Len(v.Str) > TextBound:
		return fmt.Sprintf("is %d characters (UTF-16 units), at most %d", UTF16Len(v.Str), TextBound)
	}
	return ""
}

// ownData: v is an object and, when keys are given, every key of it is one
// of them. It returns a problem in words, or "".
func ownData(v Value, keys ...string) string {
	if v.Kind != Object {
		if v.Kind == Absent {
			return "is missing (an object is required)"
		}
		return describe(v) + " is not an object"
	}
	if keys == nil {
		return ""
	}
	for _, m := range v.Members {
		if !slices.Contains(keys, m.Key) {
			return fmt.Sprintf("has the unknown key %q (allowed: %s)", clip(m.Key), strings.Join(keys, ", "))
		}
	}
	return ""
}

// comparable is comparableValueOf: the value itself for strings, integers
// and booleans, null for null, undefined (ok false) otherwise.
func comparable(v Value) (Value, bool) {
	switch v.Kind {
	case String, Int, Bool, Null:
		return v, true
	}
	return Value{}, false
}

// participates: false for null, the string "unknown" and objects whose
// kind is "unknown" or "not-applicable".
func participates(v Value) bool {
	switch v.Kind {
	case Null:
		return false
	case String:
		return v.Str != "unknown"
	case Object:
		k := v.Get("kind")
		return !k.IsString("unknown") && !k.IsString("not-applicable")
	}
	return true
}

// Comparable reports whether a declared value can be compared with an
// archive value (engine/claimcheck/README.md §3.2, row 3): a string,
// integer or boolean that participates.
func Comparable(v Value) bool {
	c, ok := comparable(v)
	return ok && c.Kind != Null && participates(v) && !c.IsString("unknown")
}

// MaxCoverageEntries bounds each list of a coverage object.
const MaxCoverageEntries = 32

// coverageProblem is validateCoverage: "" when c is a valid coverage.
func coverageProblem(c Value) string {
	if p := ownData(c, "checked", "notChecked", "cannotCover"); p != "" {
		return p
	}
	for _, m := range c.Members {
		if m.Value.Kind != Array {
			return fmt.Sprintf("%s: %s is not an array", m.Key, describe(m.Value))
		}
		if len(m.Value.Items) > MaxCoverageEntries {
			return fmt.Sprintf("%s: %d entries, at most %d", m.Key, len(m.Value.Items), MaxCoverageEntries)
		}
		for i, e := range m.Value.Items {
			if m.Key != "cannotCover" {
				if p := textProblem(e); p != "" {
					return fmt.Sprintf("%s[%d] %s", m.Key, i, p)
				}
				continue
			}
			if p := ownData(e, "item", "reason", "kind"); p != "" {
				return fmt.Sprintf("cannotCover[%d] %s", i, p)
			}
			for _, k := range []string{"item", "reason"} {
				if p := textProblem(e.Get(k)); p != "" {
					return fmt.Sprintf("cannotCover[%d].%s %s", i, k, p)
				}
			}
			if k := e.Get("kind"); k.Kind != Absent && !k.IsString("existence") && !k.IsString("scope") {
				return fmt.Sprintf("cannotCover[%d].kind %s is not existence or scope", i, describe(k))
			}
		}
	}
	return ""
}

// periodProblem is periodProblem(p, 'camel'): "" when p is a valid period.
func periodProblem(p Value) string {
	if q := ownData(p, "queried", "held", "readAt"); q != "" {
		return q
	}
	queried := p.Get("queried")
	if q := rangeProblem(queried); q != "" {
		return "queried " + q
	}
	if held := p.Get("held"); !held.IsString("unknown") {
		if q := rangeProblem(held); q != "" {
			return "held " + q
		}
	}
	if at := p.Get("readAt"); at.Kind != Absent {
		if _, err := parseInstant(at); err != nil {
			return "readAt " + err.Error()
		}
	}
	return ""
}

// rangeProblem checks {from, to}: both instants, from <= to.
func rangeProblem(r Value) string {
	if q := ownData(r, "from", "to"); q != "" {
		return q
	}
	from, err := parseInstant(r.Get("from"))
	if err != nil {
		return "from " + err.Error()
	}
	to, err := parseInstant(r.Get("to"))
	if err != nil {
		return "to " + err.Error()
	}
	if from.compare(to) > 0 {
		return "from is after to"
	}
	return ""
}
