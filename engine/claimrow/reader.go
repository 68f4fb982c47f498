package claimrow

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// ErrRow is wrapped by every refusal of ReadRow that is not a JSON line
// error (those wrap ErrJSON).
var ErrRow = errors.New("invalid claim-verification row")

// rowError is one refusal, in words; it matches ErrRow.
type rowError struct{ msg string }

func (e *rowError) Error() string { return e.msg }
func (e *rowError) Is(target error) bool {
	return target == ErrRow
}

func refuse(format string, args ...any) error { return &rowError{fmt.Sprintf(format, args...)} }

// rowKeys are the keys a row may have.
var rowKeys = []string{"kind", "claimId", "declaredOn", "standing", "iteration", "turn", "checker",
	"declaredResult", "declaredRule", "declaredValue", "outcome", "reason", "resolved"}

// ReadRow is the seed's readClaimVerificationRow over one line of JSON
// Lines (without its LF): the JSON rules of engine/claimcheck/README.md §2.1, then every rule of
// the seed in its order. It returns the row, or the first rule that failed
// in words. It validates the recorded protocol only; whether the claimed
// value agrees with anything is not its business.
func ReadRow(line []byte) (Value, error) {
	v, err := ParseLine(line, RowBytes)
	if err != nil {
		return Value{}, err
	}
	if err := copyJSON(v, RowBytes, "the row"); err != nil {
		return Value{}, err
	}
	return v, readRow(v)
}

// copyJSON is copyJson(v, max, true) over a value that ParseLine already
// held to the JSON rules: v must be present and its canonical JSON at most
// max bytes.
func copyJSON(v Value, max int, what string) error {
	if v.Kind == Absent {
		return refuse("%s is missing", what)
	}
	if n := len(Canonical(v)); n > max {
		return refuse("%s is %d bytes as canonical JSON, at most %d", what, n, max)
	}
	return nil
}

func integer(v Value, minimum int64) bool { return v.Kind == Int && v.Int >= minimum }

func readRow(row Value) error {
	if p := ownData(row, rowKeys...); p != "" {
		return refuse("the row %s", p)
	}
	checker := row.Get("checker")
	if p := ownData(checker, "id", "version"); p != "" {
		return refuse("checker %s", p)
	}
	claim, err := ReadClaimIdentity(row.Get("claimId"))
	if err != nil {
		return refuse("claimId: %v", err)
	}
	standing := row.Get("standing")
	switch {
	case !row.Get("kind").IsString("claim-verification"):
		return refuse("kind %s is not \"claim-verification\"", describe(row.Get("kind")))
	case standing.Kind != String:
		return refuse("standing %s is not a string", describe(standing))
	case !slices.Contains(StandingValues, standing.Str):
		return refuse("standing %s is not fact, open, ruled-out or noise", describe(standing))
	case !integer(row.Get("iteration"), 0):
		return refuse("iteration %s is not an integer >= 0", describe(row.Get("iteration")))
	case row.Has("turn") && !integer(row.Get("turn"), 1):
		return refuse("turn %s is not an integer >= 1", describe(row.Get("turn")))
	case !checker.Get("id").IsString("claim-pair"):
		return refuse("checker.id %s is not \"claim-pair\"", describe(checker.Get("id")))
	case !(checker.Get("version").Kind == Int && checker.Get("version").Int == 1):
		return refuse("checker.version %s is not 1", describe(checker.Get("version")))
	case !row.Has("declaredValue"):
		return refuse("declaredValue is missing")
	case row.Has("declaredResult") && row.Get("declaredResult").Kind != String:
		return refuse("declaredResult %s is not a string", describe(row.Get("declaredResult")))
	case row.Has("declaredResult") && UTF16Len(row.Get("declaredResult").Str) > ResultIDText:
		return refuse("declaredResult is %d characters (UTF-16 units), at most %d", UTF16Len(row.Get("declaredResult").Str), ResultIDText)
	case row.Has("declaredRule") && !BoundedText(row.Get("declaredRule")):
		return refuse("declaredRule %s", textProblem(row.Get("declaredRule")))
	}
	if err := copyJSON(row.Get("declaredValue"), ValueBytes, "declaredValue"); err != nil {
		return err
	}
	if on := row.Get("declaredOn"); !on.IsString("answer") {
		if p := ownData(on, "toolCallId"); p != "" {
			return refuse("declaredOn %s (it is \"answer\" or {\"toolCallId\": text})", p)
		}
		if p := textProblem(on.Get("toolCallId")); p != "" {
			return refuse("declaredOn.toolCallId %s", p)
		}
	}
	if row.Get("outcome").IsString("unverified") {
		return unverifiedProblem(row)
	}
	return comparedProblem(row, claim)
}

// unverifiedProblem checks the reason of an unverified row against what
// the row carries.
func unverifiedProblem(row Value) error {
	reason, standing := row.Get("reason"), row.Get("standing").Str
	switch {
	case reason.Kind != String:
		return refuse("reason %s is not a string", describe(reason))
	case !slices.Contains(UnverifiedReasons, reason.Str):
		return refuse("reason %s is not a reason for an unverified outcome", describe(reason))
	case row.Has("resolved"):
		return refuse("an unverified row carries no resolved block")
	case standing == "noise" && reason.Str != "ineligible-noise":
		return refuse("a noise claim is unverified only as ineligible-noise, not %s", reason.Str)
	case reason.Str == "ineligible-noise" && standing != "noise":
		return refuse("ineligible-noise is the reason of noise claims only (standing is %s)", standing)
	case reason.Str == "missing-check" && row.Has("declaredRule"):
		return refuse("missing-check, yet the row has a declaredRule")
	case !slices.Contains([]string{"missing-check", "malformed-check", "ineligible-noise"}, reason.Str) && !row.Has("declaredRule"):
		return refuse("%s needs a declaredRule", reason.Str)
	case !slices.Contains([]string{"missing-check", "malformed-check", "ineligible-noise", "missing-result"}, reason.Str) && !row.Has("declaredResult"):
		return refuse("%s needs a declaredResult", reason.Str)
	}
	return nil
}

// comparedProblem checks a supported or contradicted row and its resolved
// block.
func comparedProblem(row Value, claim Identity) error {
	outcome, reason := row.Get("outcome"), row.Get("reason")
	switch {
	case row.Get("standing").IsString("noise"):
		return refuse("a noise claim is never compared (outcome %s)", describe(outcome))
	case outcome.IsString("supported") && !(reason.IsString("no-conflict") || reason.IsString("numeric-leniency")):
		return refuse("a supported row has reason no-conflict or numeric-leniency, not %s", describe(reason))
	case outcome.IsString("contradicted") && !reason.IsString("conflict"):
		return refuse("a contradicted row has reason conflict, not %s", describe(reason))
	case !outcome.IsString("supported") && !outcome.IsString("contradicted"):
		return refuse("outcome %s is not supported, contradicted or unverified", describe(outcome))
	}
	return resolvedProblem(row, claim)
}

func resolvedProblem(row Value, claim Identity) error {
	resolved := row.Get("resolved")
	if p := ownData(resolved, "resultId", "rule", "scope", "coverage", "period", "evidence", "claim"); p != "" {
		return refuse("resolved %s", p)
	}
	rule := resolved.Get("rule")
	if p := ownData(rule, "id", "version"); p != "" {
		return refuse("resolved.rule %s", p)
	}
	scope := resolved.Get("scope")
	if err := copyJSON(scope, ScopeBytes, "resolved.scope"); err != nil {
		return err
	}
	if p := ownData(scope); p != "" {
		return refuse("resolved.scope %s", p)
	}
	result, err := ReadResultIdentity(resolved.Get("resultId"))
	if err != nil {
		return refuse("resolved.resultId: %v", err)
	}
	declaredResult, declaredRule := row.Get("declaredResult"), row.Get("declaredRule")
	switch {
	case result.Namespace != claim.Namespace:
		return refuse("resolved.resultId is in namespace %q, the claim in %q", clip(result.Namespace), clip(claim.Namespace))
	case declaredResult.Kind != String || resolved.Get("resultId").Str != declaredResult.Str:
		return refuse("resolved.resultId is not the row's declaredResult")
	case !BoundedText(rule.Get("id")):
		return refuse("resolved.rule.id %s", textProblem(rule.Get("id")))
	case declaredRule.Kind != String || rule.Get("id").Str != declaredRule.Str:
		return refuse("resolved.rule.id is not the row's declaredRule")
	case !BoundedText(rule.Get("version")):
		return refuse("resolved.rule.version %s", textProblem(rule.Get("version")))
	case len(scope.Members) == 0:
		return refuse("resolved.scope is empty")
	case len(scope.Members) > ScopeDimension:
		return refuse("resolved.scope has %d keys, at most %d", len(scope.Members), ScopeDimension)
	}
	for _, m := range scope.Members {
		if !boundedText(m.Key) {
			return refuse("resolved.scope key %s", textProblem(StringValue(m.Key)))
		}
	}
	if p := coverageProblem(resolved.Get("coverage")); p != "" {
		return refuse("resolved.coverage %s", p)
	}
	if resolved.Has("period") {
		if p := periodProblem(resolved.Get("period")); p != "" {
			return refuse("resolved.period %s", p)
		}
	}
	evidence, claimed := resolved.Get("evidence"), resolved.Get("claim")
	if p := assertionProblem(evidence); p != "" {
		return refuse("resolved.evidence %s", p)
	}
	if p := assertionProblem(claimed); p != "" {
		return refuse("resolved.claim %s", p)
	}
	switch {
	case !bytes.Equal(Canonical(evidence.Get("subject")), Canonical(claimed.Get("subject"))):
		return refuse("resolved.evidence and resolved.claim are about different subjects")
	case evidence.Get("predicate").Str != claimed.Get("predicate").Str:
		return refuse("resolved.evidence and resolved.claim have different predicates")
	case evidence.Get("provenance").Str != "result "+resolved.Get("resultId").Str:
		return refuse("resolved.evidence.provenance is not \"result <resultId>\"")
	case claimed.Get("provenance").Str != "rule "+rule.Get("id").Str:
		return refuse("resolved.claim.provenance is not \"rule <rule id>\"")
	case !bytes.Equal(Canonical(claimed.Get("value")), Canonical(row.Get("declaredValue"))):
		return refuse("resolved.claim.value is not the row's declaredValue")
	}
	return nil
}

// assertionProblem is eligibleAssertion: "" when a is an eligible
// assertion.
func assertionProblem(a Value) string {
	if p := ownData(a, "subject", "predicate", "value", "stratum", "provenance"); p != "" {
		return p
	}
	subject := a.Get("subject")
	if p := ownData(subject, "kind", "id"); p != "" {
		return "subject " + p
	}
	value := a.Get("value")
	c, ok := comparable(value)
	switch {
	case !subject.Get("kind").IsString("entity"):
		return fmt.Sprintf("subject.kind %s is not \"entity\"", describe(subject.Get("kind")))
	case !BoundedText(subject.Get("id")):
		return "subject.id " + textProblem(subject.Get("id"))
	case !BoundedText(a.Get("predicate")):
		return "predicate " + textProblem(a.Get("predicate"))
	case !a.Get("stratum").IsString("asserted"):
		return fmt.Sprintf("stratum %s is not \"asserted\"", describe(a.Get("stratum")))
	case a.Get("provenance").Kind != String:
		return fmt.Sprintf("provenance %s is not a string", describe(a.Get("provenance")))
	case value.Kind == Absent:
		return "value is missing"
	case !participates(value):
		return fmt.Sprintf("value %s does not participate (null, \"unknown\" or an unknown kind)", describe(value))
	case !ok || c.Kind == Null || c.IsString("unknown"):
		return fmt.Sprintf("value %s is not a string, integer or boolean", describe(value))
	}
	return ""
}
