package claimrow

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRowJSON(t *testing.T) {
	claim := Identity{"agent", "run-1", 2}
	tests := []struct {
		name string
		row  Row
		want string // the canonical row, or "" when JSON must refuse it
		err  string
	}{
		{
			name: "compared row",
			row: Row{Claim: claim, DeclaredOn: sv("answer"), Standing: "fact", DeclaredResult: "claim-result/agent/run-1/1",
				DeclaredRule: "chronicle.settlement.settled", DeclaredValue: sv("30/1"), Outcome: Contradicted, Reason: Conflict,
				Resolved: &Resolved{Document: "a4b3", Question: "Did Alice repay Bob?", Receipt: "ab12",
					SubjectID: "debt/Alice/Bob", Predicate: "settled", Value: sv("40/1")}},
			want: comparedText,
		},
		{
			name: "unverified row",
			row: Row{Claim: Identity{"agent", "run-1", 1}, DeclaredOn: sv("answer"), Standing: "fact",
				DeclaredValue: sv("x"), Outcome: Unverified, Reason: MalformedCheck},
			want: unverifiedText,
		},
		{
			name: "turn, tool call and escaped identity",
			row: Row{Claim: Identity{"a/b", "_", 9}, DeclaredOn: ObjectValue(Member{"toolCallId", sv("call_7")}), Standing: "open",
				Iteration: 3, Turn: 2, DeclaredResult: "claim-result/a%2Fb/%5F/1", DeclaredRule: "chronicle.find.lines",
				DeclaredValue: iv(4), Outcome: Unverified, Reason: NotAsserted},
			want: `{"checker":{"id":"claim-pair","version":1},"claimId":"claim-verification/a%2Fb/%5F/9",` +
				`"declaredOn":{"toolCallId":"call_7"},"declaredResult":"claim-result/a%2Fb/%5F/1","declaredRule":"chronicle.find.lines",` +
				`"declaredValue":4,"iteration":3,"kind":"claim-verification","outcome":"unverified","reason":"not-asserted",` +
				`"standing":"open","turn":2}`,
		},
		{
			name: "an invalid claim identity",
			row:  Row{Claim: Identity{"", "run-1", 1}, DeclaredOn: sv("answer"), Standing: "fact", DeclaredValue: sv("x"), Outcome: Unverified, Reason: MalformedCheck},
			err:  "namespace must be 1..4096",
		},
		{
			name: "a compared row of an uncomparable value is refused by the reader",
			row: Row{Claim: claim, DeclaredOn: sv("answer"), Standing: "fact", DeclaredResult: "claim-result/agent/run-1/1",
				DeclaredRule: "chronicle.settlement.settled", DeclaredValue: ArrayValue(), Outcome: Contradicted, Reason: Conflict,
				Resolved: &Resolved{Document: "a4b3", Question: "q", Receipt: "r", SubjectID: "debt/Alice/Bob", Predicate: "settled", Value: sv("40/1")}},
			err: "resolved.claim value an array is not a string",
		},
		{
			name: "a scope beyond SCOPE_BYTES is refused by the reader",
			row: Row{Claim: claim, DeclaredOn: sv("answer"), Standing: "fact", DeclaredResult: "claim-result/agent/run-1/1",
				DeclaredRule: "chronicle.settlement.settled", DeclaredValue: sv("30/1"), Outcome: Supported, Reason: NoConflict,
				Resolved: &Resolved{Document: "a4b3", Question: rep("\x01", 1400), Receipt: "r", SubjectID: "debt/Alice/Bob", Predicate: "settled", Value: sv("30/1")}},
			err: "resolved.scope is 8",
		},
		{
			name: "a noise claim with another reason is refused by the reader",
			row:  Row{Claim: claim, DeclaredOn: sv("answer"), Standing: "noise", DeclaredValue: sv("x"), Outcome: Unverified, Reason: MissingCheck},
			err:  "a noise claim is unverified only as ineligible-noise",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.row.JSON()
			if tt.err != "" {
				require.Error(t, err)
				require.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, string(b))
			v, err := ReadRow(b)
			require.NoError(t, err)
			require.Equal(t, string(b), string(Canonical(v)), "rows are written canonical")
		})
	}
}

func TestComparable(t *testing.T) {
	tests := []struct {
		v    Value
		want bool
	}{
		{sv("40/1"), true},
		{sv(""), true},
		{sv("Unknown"), true},
		{iv(0), true},
		{iv(-3), true},
		{bv(false), true},
		{sv("unknown"), false},
		{nullValue(), false},
		{Value{}, false},
		{ArrayValue(), false},
		{jv(`{"kind":"entity"}`), false},
		{jv(`{"kind":"unknown"}`), false},
	}
	for _, tt := range tests {
		t.Run(string(Canonical(tt.v)), func(t *testing.T) {
			require.Equal(t, tt.want, Comparable(tt.v))
		})
	}
}
