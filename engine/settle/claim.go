package settle

import (
	"fmt"
	"strings"

	"github.com/casper-chronicle/chronicle/engine"
)

// ClaimPrefix starts every literal claim question (CONTRACT 5.2, 10).
const ClaimPrefix = "@claim\t"

// IsClaim reports whether question takes the literal-claim path.
func IsClaim(question string) bool { return strings.HasPrefix(question, ClaimPrefix) }

// ClaimQuestion builds the question "@claim<TAB>S<TAB>P<TAB>O" that the
// claim command runs through the query path.
func ClaimQuestion(subject, predicate, object string) string {
	return ClaimPrefix + subject + "\t" + predicate + "\t" + object
}

var claimFieldNames = [3]string{"subject", "predicate", "object"}

// ParseClaim splits a claim question into its three fields (CONTRACT 10):
// after "@claim<TAB>" exactly three TAB-separated fields, each 1..127 bytes
// with no byte below 0x20 and no 0x7F. Errors wrap ErrClaimSyntax and name
// the broken rule.
func ParseClaim(question string) (subject, predicate, object string, err error) {
	if !IsClaim(question) {
		return "", "", "", fmt.Errorf("%w: question does not start with \"@claim<TAB>\"", ErrClaimSyntax)
	}
	fields := strings.Split(question[len(ClaimPrefix):], "\t")
	if len(fields) != 3 {
		plural := "s"
		if len(fields) == 1 {
			plural = ""
		}
		return "", "", "", fmt.Errorf("%w: claim has %d field%s, want 3", ErrClaimSyntax, len(fields), plural)
	}
	for i, f := range fields {
		name := claimFieldNames[i]
		switch {
		case f == "":
			return "", "", "", fmt.Errorf("%w: claim %s is empty", ErrClaimSyntax, name)
		case len(f) > engine.MaxFieldLen:
			return "", "", "", fmt.Errorf("%w: claim %s is %d bytes, the limit is %d",
				ErrClaimSyntax, name, len(f), engine.MaxFieldLen)
		}
		for k := 0; k < len(f); k++ {
			if c := f[k]; c < 0x20 || c == 0x7f {
				return "", "", "", fmt.Errorf("%w: claim %s has control byte 0x%02x at byte %d",
					ErrClaimSyntax, name, c, k)
			}
		}
	}
	return fields[0], fields[1], fields[2], nil
}

// EvaluateClaim answers a literal claim question (CONTRACT 10). A match is an
// event whose span does not begin with "@", with modality LITERAL, polarity
// POSITIVE, status ASSERTED and subject, predicate and object equal to the
// claim's fields byte for byte. Typed records (their span starts with "@")
// and Arabic sentences never match; V1 stores hold no literal events.
func EvaluateClaim(s *engine.Store, question string) (*Claim, error) {
	if s == nil {
		return nil, ErrNoStore
	}
	subject, predicate, object, err := ParseClaim(question)
	if err != nil {
		return nil, err
	}
	used := make([]bool, len(s.Events))
	for i := range s.Events {
		e := &s.Events[i]
		if e.Modality == engine.ModalityLiteral && e.Polarity == engine.PolarityPositive &&
			e.Status == engine.StatusAsserted && e.Subject == subject &&
			e.Predicate == predicate && e.Object == object && !spanStartsWithAt(s, e) {
			used[i] = true
		}
	}
	evidence, err := collectEvidence(s, used, nil)
	if err != nil {
		return nil, err
	}
	status := Unresolved
	if len(evidence) > 0 {
		status = ExactStated
	}
	return &Claim{
		Question:  question,
		Status:    status,
		Subject:   subject,
		Predicate: predicate,
		Object:    object,
		Document:  s.Document,
		Evidence:  evidence,
	}, nil
}

// spanStartsWithAt reports whether the event's span begins with "@" (a span
// outside the source is left for collectEvidence to report).
func spanStartsWithAt(s *engine.Store, e *engine.Event) bool {
	return e.ByteStart < e.ByteEnd && e.ByteStart < uint64(len(s.Source)) && s.Source[e.ByteStart] == '@'
}
