package settle

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClaimSyntax(t *testing.T) {
	f127 := strings.Repeat("x", 127)
	for _, c := range []struct {
		question string
		s, p, o  string
		err      string // "" when accepted
	}{
		{question: "@claim\tAlice\towns\tBook", s: "Alice", p: "owns", o: "Book"},
		{question: "@claim\tأحمد\tيملك\tكتاب", s: "أحمد", p: "يملك", o: "كتاب"},
		{question: "@claim\tA\"li\towns\tB\\ook", s: "A\"li", p: "owns", o: "B\\ook"},
		{question: "@claim\ta b\t c \td.", s: "a b", p: " c ", o: "d."},
		{question: "@claim\t@\t?\t/", s: "@", p: "?", o: "/"},
		{question: "@claim\t" + f127 + "\t" + f127 + "\t" + f127, s: f127, p: f127, o: f127},
		{question: "@claim\t\xff\tp\to", s: "\xff", p: "p", o: "o"}, // UTF-8 is the CLI's business

		{question: "@claim\t", err: "claim has 1 field, want 3"},
		{question: "@claim\tAlice", err: "claim has 1 field, want 3"},
		{question: "@claim\tAlice\towns", err: "claim has 2 fields, want 3"},
		{question: "@claim\tAlice\towns\tBook\t", err: "claim has 4 fields, want 3"},
		{question: "@claim\tAlice\towns\tBook\tPen", err: "claim has 4 fields, want 3"},
		{question: "@claim\t\tAlice\towns\tBook", err: "claim has 4 fields, want 3"},
		{question: "@claim\t\towns\tBook", err: "claim subject is empty"},
		{question: "@claim\tAlice\t\tBook", err: "claim predicate is empty"},
		{question: "@claim\tAlice\towns\t", err: "claim object is empty"},
		{question: "@claim\t\t\t", err: "claim subject is empty"},
		{question: "@claim\t" + f127 + "x\towns\tBook", err: "claim subject is 128 bytes, the limit is 127"},
		{question: "@claim\tAlice\t" + f127 + "x\tBook", err: "claim predicate is 128 bytes, the limit is 127"},
		{question: "@claim\tAlice\towns\t" + f127 + "x", err: "claim object is 128 bytes, the limit is 127"},
		{question: "@claim\tAlice\nX\towns\tBook", err: "claim subject has control byte 0x0a at byte 5"},
		{question: "@claim\tAlice\towns\r\tBook", err: "claim predicate has control byte 0x0d at byte 4"},
		{question: "@claim\tAlice\towns\tBo\x01ok", err: "claim object has control byte 0x01 at byte 2"},
		{question: "@claim\tAlice\towns\tBook\x7f", err: "claim object has control byte 0x7f at byte 4"},
		{question: "@claim\tAlice\towns\tBook\n", err: "claim object has control byte 0x0a at byte 4"},
		{question: "@claim\tAl\x00ice\towns\tBook", err: "claim subject has control byte 0x00 at byte 2"},
		{question: "Alice owns Book", err: "question does not start with \"@claim<TAB>\""},
	} {
		t.Run(c.question, func(t *testing.T) {
			s, p, o, err := ParseClaim(c.question)
			if c.err != "" {
				require.ErrorIs(t, err, ErrClaimSyntax)
				require.EqualError(t, err, "malformed claim question: "+c.err)
				if IsClaim(c.question) {
					_, qerr := Query(newStore(t, "Alice owns Book."), c.question)
					require.ErrorIs(t, qerr, ErrClaimSyntax)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, [3]string{c.s, c.p, c.o}, [3]string{s, p, o})
			require.Equal(t, c.question, ClaimQuestion(s, p, o))
		})
	}
}

// TestNotClaims: only the exact prefix "@claim<TAB>" takes the claim path;
// everything else is a (valid, UNKNOWN) settlement question.
func TestNotClaims(t *testing.T) {
	s := newStore(t, "Alice owns Book.")
	for _, q := range []string{"@claim", "@claim Alice owns Book", "@Claim\tAlice\towns\tBook",
		" @claim\tAlice\towns\tBook", "@claims\tAlice\towns\tBook", "@claim\\tAlice"} {
		t.Run(q, func(t *testing.T) {
			require.False(t, IsClaim(q))
			r, err := Evaluate(s, q)
			require.NoError(t, err)
			require.IsType(t, &Settlement{}, r)
			require.Equal(t, Unknown, r.ResultStatus())
		})
	}
}

func TestClaimMatching(t *testing.T) {
	s := newStore(t,
		"Alice owns Book.",         // 1 literal
		"  Carol\tOWNS  Pen .  \r", // 2 literal with blanks; span keeps them (CR excluded)
		rec("Alice", "PAID_TO", "Bob", "1", "SAR", "T", "LITERAL", "POSITIVE", "ASSERTED"), // 3 typed, LITERAL modality
		"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.",                  // 4 Arabic
		"أقر أحمد كتابا.",         // 5 literal from a failed Arabic sentence
		"Alice owns Book.",        // 6 literal again
		"Alice really owns Book.", // 7 prose (four tokens)
		"Alice owns Book",         // 8 prose (no period)
		"Alice Owns Book.",        // 9 literal, other predicate
	)
	for _, c := range []struct {
		name, s, p, o string
		status        Status
		lines         []uint64
		text          []string
	}{
		{"two literal lines", "Alice", "owns", "Book", ExactStated, []uint64{1, 6}, []string{"Alice owns Book.", "Alice owns Book."}},
		{"blanks around tokens", "Carol", "OWNS", "Pen", ExactStated, []uint64{2}, []string{"  Carol\tOWNS  Pen .  "}},
		{"typed record with LITERAL modality never matches", "Alice", "PAID_TO", "Bob", Unresolved, nil, nil},
		{"Arabic events never match", "أحمد", "BORROWED_FROM", "خالد", Unresolved, nil, nil},
		{"fallback literal from an Arabic prefix", "أقر", "أحمد", "كتابا", ExactStated, []uint64{5}, []string{"أقر أحمد كتابا."}},
		{"case sensitive", "Alice", "Owns", "Book", ExactStated, []uint64{9}, []string{"Alice Owns Book."}},
		{"no partial match", "Alice", "owns", "Boo", Unresolved, nil, nil},
		{"no trimming of the claim", "Alice ", "owns", "Book", Unresolved, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := EvaluateClaim(s, ClaimQuestion(c.s, c.p, c.o))
			require.NoError(t, err)
			require.Equal(t, c.status, got.Status)
			require.Equal(t, [3]string{c.s, c.p, c.o}, [3]string{got.Subject, got.Predicate, got.Object})
			require.Equal(t, c.lines, evidenceLines(got.Evidence))
			var texts []string
			for _, e := range got.Evidence {
				texts = append(texts, e.Text)
			}
			require.Equal(t, c.text, texts)
		})
	}
}

// TestClaimJSON pins the exact bytes of an UNRESOLVED claim with escapes.
func TestClaimJSON(t *testing.T) {
	s := newStore(t, "Alice owns Book.")
	out, err := Query(s, "@claim\tA\"li\towns\tB\\o/ok")
	require.NoError(t, err)
	require.Equal(t, `{"status":"UNRESOLVED","assessment":"LITERAL_RETRIEVAL","question":"@claim\tA\"li\towns\tB\\o/ok","subject":"A\"li","predicate":"owns","object":"B\\o/ok","limits":"three-token literal retrieval; no inference or truth guarantee","evidence":[]}`, string(out))
}
