package claimrow

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Identity prefixes (engine/claimcheck/README.md §4.3).
const (
	ClaimPrefix  = "claim-verification"
	ResultPrefix = "claim-result"
)

// Identity is the (namespace, runId, ordinal) of a claim or of a result.
type Identity struct {
	Namespace string
	RunID     string
	Ordinal   int64
}

// ErrIdentity wraps every identity error.
var ErrIdentity = errors.New("invalid identity")

// EncodeIdentityField spells one identity field: "_" becomes %5F; any other
// value has every % turned into %25, then every / into %2F. The spelling
// never contains '/', so fields split apart again, and "_" is left free to
// mean absence.
func EncodeIdentityField(s string) string {
	if s == "_" {
		return "%5F"
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "%", "%25"), "/", "%2F")
}

// DecodePresentIdentityField reads a spelled field left to right: %25, %2F
// and %5F decode; any other % is refused, and so are "" and "_" (the
// spelling of absence). Callers check the round trip, which refuses the
// other non-canonical spellings (an escaped _ inside a longer value).
func DecodePresentIdentityField(s string) (string, error) {
	if s == "" || s == "_" {
		return "", fmt.Errorf("%w: field %q is the spelling of an absent value", ErrIdentity, s)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1 : min(i+3, len(s))] {
		case "25":
			b.WriteByte('%')
		case "2F":
			b.WriteByte('/')
		case "5F":
			b.WriteByte('_')
		default:
			return "", fmt.Errorf("%w: field %q has %% at byte %d not followed by 25, 2F or 5F", ErrIdentity, clip(s), i)
		}
		i += 2
	}
	return b.String(), nil
}

// Limits of identities and rows (engine/claimcheck/README.md §4.4);
// lengths of text in UTF-16 units.
const (
	ResultIDText = 4096
	IdentityText = ResultIDText + len(ClaimPrefix) - len(ResultPrefix) // 4102
	TextBound    = 4096
	RowBytes     = 65536
	ScopeBytes   = 8192
	// ValueBytes bounds a declaredValue's canonical JSON. The seed defines
	// it as the scope bound (VERIFICATION_LIMITS.valueBytes =
	// BINDING_LIMITS.scopeBytes), and rows must read alike in both.
	ValueBytes     = ScopeBytes
	ScopeDimension = 8
)

// ClaimID is the seed's claimIdentityOf: the canonical claim identity.
func ClaimID(id Identity) (string, error) { return identityOf(ClaimPrefix, id) }

// ResultID is the canonical result identity, claim-result/<ns>/<runId>/<n>.
func ResultID(id Identity) (string, error) { return identityOf(ResultPrefix, id) }

func identityOf(prefix string, id Identity) (string, error) {
	switch {
	case !boundedText(id.Namespace):
		return "", fmt.Errorf("%w: the namespace must be 1..%d characters", ErrIdentity, TextBound)
	case !boundedText(id.RunID):
		return "", fmt.Errorf("%w: the runId must be 1..%d characters", ErrIdentity, TextBound)
	case id.Ordinal < 1 || id.Ordinal > MaxSafeInteger:
		return "", fmt.Errorf("%w: the ordinal %d is not an integer from 1 to 2^53-1", ErrIdentity, id.Ordinal)
	}
	return prefix + "/" + EncodeIdentityField(id.Namespace) + "/" + EncodeIdentityField(id.RunID) + "/" +
		strconv.FormatInt(id.Ordinal, 10), nil
}

// ReadClaimIdentity is the seed's readClaimIdentity.
func ReadClaimIdentity(v Value) (Identity, error) { return readIdentity(v, ClaimPrefix, IdentityText) }

// ReadResultIdentity is readClaimIdentity with the result prefix and the
// RESULT_ID_TEXT bound (engine/claimcheck/README.md §4.3, §4.4).
func ReadResultIdentity(v Value) (Identity, error) {
	return readIdentity(v, ResultPrefix, ResultIDText)
}

func readIdentity(v Value, prefix string, bound int) (Identity, error) {
	if v.Kind != String {
		return Identity{}, fmt.Errorf("%w: %s, not a string", ErrIdentity, v.Kind)
	}
	if n := UTF16Len(v.Str); n > bound {
		return Identity{}, fmt.Errorf("%w: %d characters, at most %d", ErrIdentity, n, bound)
	}
	parts := strings.Split(v.Str, "/")
	if len(parts) != 4 || parts[0] != prefix {
		return Identity{}, fmt.Errorf("%w: %q is not %s/<namespace>/<runId>/<ordinal>", ErrIdentity, clip(v.Str), prefix)
	}
	var id Identity
	var err error
	if id.Namespace, err = DecodePresentIdentityField(parts[1]); err != nil {
		return Identity{}, err
	}
	if id.RunID, err = DecodePresentIdentityField(parts[2]); err != nil {
		return Identity{}, err
	}
	// The seed reads the ordinal with Number() and then requires the
	// re-encoded identity to be the same text: exactly the plain decimal of
	// a safe integer >= 1 survives that.
	id.Ordinal, err = strconv.ParseInt(parts[3], 10, 64)
	if err != nil || !isPlainDecimal(parts[3]) || id.Ordinal > MaxSafeInteger {
		return Identity{}, fmt.Errorf("%w: ordinal %q is not the plain decimal of an integer from 1 to 2^53-1", ErrIdentity, clip(parts[3]))
	}
	canonical, err := identityOf(prefix, id)
	if err != nil {
		return Identity{}, err
	}
	if canonical != v.Str {
		return Identity{}, fmt.Errorf("%w: %q is not canonical (it should read %q)", ErrIdentity, clip(v.Str), clip(canonical))
	}
	return id, nil
}

func isPlainDecimal(s string) bool {
	if s == "" || s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
