package claimrow

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEncodeIdentityField(t *testing.T) {
	tests := []struct{ in, want string }{
		{"agent", "agent"},
		{"_", "%5F"},
		{"__", "__"},
		{"a_b", "a_b"},
		{"%", "%25"},
		{"/", "%2F"},
		{"a/b%c", "a%2Fb%25c"},
		{"%2F", "%252F"},
		{"%5F", "%255F"},
		{"%25", "%2525"},
		{"//", "%2F%2F"},
		{"é/" + emoji, "é%2F" + emoji},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			require.Equal(t, tt.want, EncodeIdentityField(tt.in))
		})
	}
}

func TestDecodePresentIdentityField(t *testing.T) {
	tests := []struct {
		in, want string
		err      string
	}{
		{in: "agent", want: "agent"},
		{in: "%5F", want: "_"},
		{in: "%25", want: "%"},
		{in: "%2F", want: "/"},
		{in: "a%2Fb%25c", want: "a/b%c"},
		{in: "%252F", want: "%2F"},
		{in: "__", want: "__"},
		{in: "é" + emoji, want: "é" + emoji},
		// Decoding alone reads escaped underscores anywhere; the round trip
		// of the identity readers refuses them (see TestReadClaimIdentity).
		{in: "a%5Fb", want: "a_b"},
		{in: "", err: "spelling of an absent value"},
		{in: "_", err: "spelling of an absent value"},
		{in: "%", err: "not followed by 25, 2F or 5F"},
		{in: "%2", err: "not followed by 25, 2F or 5F"},
		{in: "%2f", err: "not followed by 25, 2F or 5F"},
		{in: "%5f", err: "not followed by 25, 2F or 5F"},
		{in: "%41", err: "not followed by 25, 2F or 5F"},
		{in: "ab%", err: "at byte 2"},
		{in: "%%25", err: "at byte 0"},
		{in: "%2é", err: "not followed by 25, 2F or 5F"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := DecodePresentIdentityField(tt.in)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrIdentity)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// adversarialFields are the identity field values the injectivity tests
// combine: separators, escape characters, pre-escaped text, the spelling
// of absence, Unicode, and every pair of them.
func adversarialFields() []string {
	atoms := []string{"/", "_", "%", "%2F", "%5F", "%25", "%2f", "2F", "5F", "25", "F", "a", "é", emoji, "__", "%%", "_/"}
	seen := map[string]bool{}
	var out []string
	addField := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, a := range atoms {
		addField(a)
	}
	for _, a := range atoms {
		for _, b := range atoms {
			addField(a + b)
		}
	}
	addField(rep("/", TextBound))
	addField(rep("_", TextBound))
	addField(rep(emoji, TextBound/2))
	return out
}

func TestIdentityFieldsInjective(t *testing.T) {
	fields := adversarialFields()
	require.Greater(t, len(fields), 250)
	spelled := map[string]string{}
	for _, f := range fields {
		e := EncodeIdentityField(f)
		require.NotContains(t, e, "/", "%q: a spelled field never holds the separator", f)
		require.NotEqual(t, "_", e, "%q: only absence is spelled _", f)
		require.NotEmpty(t, e)
		other, dup := spelled[e]
		require.False(t, dup, "%q and %q both spell %q", f, other, e)
		spelled[e] = f
		back, err := DecodePresentIdentityField(e)
		require.NoError(t, err, "%q spelled %q", f, e)
		require.Equal(t, f, back)
	}
}

func TestIdentitiesInjective(t *testing.T) {
	fields := adversarialFields()
	ordinals := []int64{1, 2, 10, MaxSafeInteger}
	for _, kind := range []struct {
		prefix string
		write  func(Identity) (string, error)
		read   func(Value) (Identity, error)
		bound  int
	}{
		{ClaimPrefix, ClaimID, ReadClaimIdentity, IdentityText},
		{ResultPrefix, ResultID, ReadResultIdentity, ResultIDText},
	} {
		t.Run(kind.prefix, func(t *testing.T) {
			seen := make(map[string]Identity, len(fields)*len(fields)*len(ordinals))
			n := 0
			// Plain checks in the loop: it runs a few hundred thousand times.
			for _, ns := range fields {
				for _, run := range fields {
					for _, ord := range ordinals {
						id := Identity{ns, run, ord}
						s, err := kind.write(id)
						if err != nil {
							t.Fatalf("%+v: %v", id, err)
						}
						if !strings.HasPrefix(s, kind.prefix+"/") || strings.Count(s, "/") != 3 {
							t.Fatalf("%+v gives %q", id, s)
						}
						if prev, dup := seen[s]; dup {
							t.Fatalf("%+v and %+v both give %q", prev, id, s)
						}
						seen[s] = id
						n++
						back, err := kind.read(StringValue(s))
						if UTF16Len(s) > kind.bound {
							if err == nil {
								t.Fatalf("%q is longer than the bound, yet read", s)
							}
							continue
						}
						if err != nil || back != id {
							t.Fatalf("%q reads back as %+v, %v; want %+v", s, back, err, id)
						}
					}
				}
			}
			require.Equal(t, len(fields)*len(fields)*len(ordinals), n)
		})
	}
}

func TestClaimIDRefusesInvalidFields(t *testing.T) {
	tests := []struct {
		name string
		id   Identity
		want string
	}{
		{"empty namespace", Identity{"", "r", 1}, "namespace must be 1..4096"},
		{"empty runId", Identity{"n", "", 1}, "runId must be 1..4096"},
		{"namespace of 4097 units", Identity{rep(emoji, 2048) + "a", "r", 1}, "namespace must be"},
		{"runId of 4097 units", Identity{"n", rep("a", 4097), 1}, "runId must be"},
		{"ordinal 0", Identity{"n", "r", 0}, "the ordinal 0 is not an integer from 1 to 2^53-1"},
		{"ordinal -1", Identity{"n", "r", -1}, "the ordinal -1"},
		{"ordinal 2^53", Identity{"n", "r", MaxSafeInteger + 1}, "the ordinal 9007199254740992"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, write := range []func(Identity) (string, error){ClaimID, ResultID} {
				_, err := write(tt.id)
				require.ErrorIs(t, err, ErrIdentity)
				require.Contains(t, err.Error(), tt.want)
			}
		})
	}
	s, err := ClaimID(Identity{rep(emoji, 2048), "r", MaxSafeInteger})
	require.NoError(t, err, "a namespace of 4096 units is boundedText")
	require.Equal(t, "claim-verification/"+rep(emoji, 2048)+"/r/9007199254740991", s)
	s, err = ResultID(Identity{"_", "a/b", 3})
	require.NoError(t, err)
	require.Equal(t, "claim-result/%5F/a%2Fb/3", s)
}

func TestReadClaimIdentity(t *testing.T) {
	tests := []identityCase{
		{in: "claim-verification/agent/run-1/2", want: Identity{"agent", "run-1", 2}},
		{in: "claim-verification/%5F/%5F/1", want: Identity{"_", "_", 1}},
		{in: "claim-verification/%2F/%25/1", want: Identity{"/", "%", 1}},
		{in: "claim-verification/%252F/%255F/1", want: Identity{"%2F", "%5F", 1}},
		{in: "claim-verification/__/a_b/1", want: Identity{"__", "a_b", 1}},
		{in: "claim-verification/" + emoji + "/é/9007199254740991", want: Identity{emoji, "é", MaxSafeInteger}},
		{in: "claim-verification/" + rep("n", 4079) + "/r/1", want: Identity{rep("n", 4079), "r", 1}},
		{in: "claim-verification/" + rep("n", 4080) + "/r/1", err: "4103 characters, at most 4102"},
		{in: "claim-verification/a%5Fb/r/1", err: "is not canonical"},
		{in: "claim-verification/%5F%5F/r/1", err: "is not canonical"},
		{in: "claim-verification/%2f/r/1", err: "not followed by 25, 2F or 5F"},
		{in: "claim-verification/%/r/1", err: "not followed by 25, 2F or 5F"},
		{in: "claim-verification/%2/r/1", err: "not followed by 25, 2F or 5F"},
		{in: "claim-verification/_/r/1", err: "spelling of an absent value"},
		{in: "claim-verification/n//1", err: "spelling of an absent value"},
		{in: "claim-verification/n/r/01", err: `ordinal "01" is not the plain decimal`},
		{in: "claim-verification/n/r/0", err: `ordinal "0" is not the plain decimal`},
		{in: "claim-verification/n/r/+1", err: `ordinal "+1" is not`},
		{in: "claim-verification/n/r/1e3", err: `ordinal "1e3" is not`},
		{in: "claim-verification/n/r/-1", err: `ordinal "-1" is not`},
		{in: "claim-verification/n/r/9007199254740992", err: `ordinal "9007199254740992" is not`},
		{in: "claim-verification/n/r/99999999999999999999", err: `ordinal "99999999999999999999" is not`},
		{in: "claim-verification/n/r/", err: `ordinal "" is not`},
		{in: "claim-verification/n/r", err: "is not claim-verification/<namespace>/<runId>/<ordinal>"},
		{in: "claim-verification/n/r/1/2", err: "is not claim-verification/"},
		{in: "claim-result/n/r/1", err: "is not claim-verification/"},
		{in: "", err: "is not claim-verification/"},
	}
	runIdentityTable(t, tests, ReadClaimIdentity, ClaimID)
	for _, v := range []Value{{}, nullValue(), iv(1), ArrayValue(sv("claim-verification/n/r/1"))} {
		_, err := ReadClaimIdentity(v)
		require.ErrorIs(t, err, ErrIdentity)
		require.Contains(t, err.Error(), "not a string")
	}
}

func TestReadResultIdentity(t *testing.T) {
	tests := []identityCase{
		{in: "claim-result/agent/run-1/1", want: Identity{"agent", "run-1", 1}},
		{in: "claim-result/%5F/a%2Fb/7", want: Identity{"_", "a/b", 7}},
		{in: "claim-result/" + rep("n", 4075) + "/run-1/1", want: Identity{rep("n", 4075), "run-1", 1}},
		{in: "claim-result/" + rep("n", 4076) + "/run-1/1", err: "4097 characters, at most 4096"},
		{in: "claim-result/" + rep(emoji, 2037) + "a/run-1/1", want: Identity{rep(emoji, 2037) + "a", "run-1", 1}},
		{in: "claim-result/" + rep(emoji, 2038) + "/run-1/1", err: "4097 characters, at most 4096"},
		{in: "claim-verification/agent/run-1/1", err: "is not claim-result/<namespace>/<runId>/<ordinal>"},
		{in: "claim-result/agent/run%5F1/1", err: "is not canonical"},
		{in: "claim-result/agent/run-1/01", err: `ordinal "01" is not`},
		{in: "claim-result/agent/_/1", err: "spelling of an absent value"},
	}
	runIdentityTable(t, tests, ReadResultIdentity, ResultID)
}

func TestIdentityConstants(t *testing.T) {
	require.Equal(t, 4096, ResultIDText)
	require.Equal(t, 4102, IdentityText)
	require.Equal(t, 4096, TextBound)
	require.Equal(t, 65536, RowBytes)
	require.Equal(t, 8192, ValueBytes)
	require.Equal(t, 8192, ScopeBytes)
	require.Equal(t, 8, ScopeDimension)
	require.Equal(t, int64(9007199254740991), int64(MaxSafeInteger))
	require.Equal(t, 32, MaxDepth)
}

// identityCase is one spelling read as an identity: the fields it reads
// back to, or a substring of its error.
type identityCase struct {
	in   string
	want Identity
	err  string
}

// runIdentityTable reads each case and, when it is accepted, writes the
// identity back to the same text.
func runIdentityTable(t *testing.T, tests []identityCase, read func(Value) (Identity, error), write func(Identity) (string, error)) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := read(StringValue(tt.in))
			if tt.err != "" {
				require.ErrorIs(t, err, ErrIdentity)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			again, err := write(got)
			require.NoError(t, err)
			require.Equal(t, tt.in, again)
		})
	}
}
