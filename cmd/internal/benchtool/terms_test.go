package benchtool

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPickTerms(t *testing.T) {
	f := NewDocFreq()
	// 200 documents: "the" in all, "middle" in 2 (1%), "rarely" in 3,
	// "pieces" in 1, words at 0.5%, 2%, 5% for the 3-term query.
	for i := range 200 {
		var d strings.Builder
		d.WriteString("the a b c d e f g h i j k l m n o p q r s t u v w x y z.\n")
		if i < 2 {
			d.WriteString("middle\n")
		}
		if i < 3 {
			d.WriteString("rarely,seen\n")
		}
		if i == 7 {
			d.WriteString("pieces\n")
		}
		if i < 1 {
			d.WriteString("halfpc\n")
		}
		if i < 4 {
			d.WriteString("twopct\n")
		}
		if i < 10 {
			d.WriteString("fivepct\n")
		}
		if i%2 == 0 {
			d.WriteString("Mixed CASE words are skipped for rare ones: Rarely\n")
		}
		f.Add([]byte(d.String()))
	}
	require.Equal(t, 200, f.Docs)
	require.Equal(t, 200, f.Words["the"])
	require.Equal(t, 3, f.Words["rarely"])
	require.Equal(t, 0, f.Words["ab"], "words under 3 bytes are not counted")

	got := map[string]Query{}
	for _, q := range PickTerms(f) {
		got[q.Class] = q
	}
	for _, tc := range []struct {
		class string
		terms []string
	}{
		{"absent", []string{AbsentTerm}},
		{"common", []string{"the"}},
		{"medium", []string{"middle"}},
		{"3 terms", []string{"halfpc", "twopct", "fivepct"}},
	} {
		require.Equal(t, tc.terms, got[tc.class].Terms, tc.class)
	}
	require.Contains(t, []string{"middle", "rarely", "seen"}, got["rare"].Terms[0])
	require.Len(t, got["16 letters"].Terms, 16)
	for _, l := range got["16 letters"].Terms {
		require.Len(t, l, 1)
	}
}

func TestTopEntities(t *testing.T) {
	out := []byte(`{"events":3,"name":"Alice"}
{"events":9,"name":"*"}
{"events":5,"name":"Saud"}
{"events":5,"name":"Zed"}
`)
	require.Equal(t, []string{"Saud"}, TopEntities(out, 1))
	require.Equal(t, []string{"Saud", "Zed", "Alice", "*"}, TopEntities(out, 9), "a mark only after every name")
	require.Equal(t, []string{"*"}, TopEntities([]byte(`{"events":9,"name":"*"}`+"\n"), 1), "a mark when it is all there is")
	require.Empty(t, TopEntities(nil, 1))
}
