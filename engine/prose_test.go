package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// proseLines are lines near every grammar: typed records and markers,
// Arabic sentences of each kind, literal statements, with and without their
// final '.', trailing blanks and CR, and plain prose.
func proseLines(r *rand.Rand) [][]byte {
	base := []string{
		"", " ", "\t", ".", " .", ". ", ".\t \t", "@", "@chronicle", "@chronicle\t", "@chronicle x",
		"@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED",
		" @chronicle\tAlice", "Alice owns Book.", "Alice owns Book. ", "Alice owns Book.\t", "Alice owns Book",
		"Alice owns Book.\r", "a b c d.", "The quick brown fox.", "Ends with a comma,",
		"أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.",
		"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول.",
		"أقر أحمد بأنه اقترض من خالد مبلغ 100 ريال سعودي في اليوم الأول. ",
		"اقترض أحمد من خالد مبلغ 5 ريال سعودي في أمس.", "أكد أحمد.", "نفى خالد.", "حوّل أحمد إلى خالد مبلغ 7 ريال سعودي في الغد.",
		"أقر .", "أقر", "في البيت", strings.Repeat("word ", 300) + ".", "x" + strings.Repeat(" ", 5000) + ".",
	}
	var out [][]byte
	for _, b := range base {
		out = append(out, []byte(b))
	}
	// Random pieces of the above (whole characters: Extract refuses
	// invalid UTF-8 before any grammar), joined with blanks and dots.
	for range 3000 {
		var sb strings.Builder
		for range 1 + r.IntN(4) {
			p := []rune(base[r.IntN(len(base))])
			if len(p) > 0 {
				i, j := r.IntN(len(p)), r.IntN(len(p)+1)
				sb.WriteString(string(p[min(i, j):max(i, j)]))
			}
			sb.WriteString([]string{"", " ", ".", "\t", "@", " ."}[r.IntN(6)])
		}
		out = append(out, []byte(sb.String()))
	}
	return out
}

// TestPlainProseIsProse: a line plainProse skips is prose for parseLine in
// both profiles (no event and no error), so skipping it changes nothing;
// and the lines it does not skip include every event.
func TestPlainProseIsProse(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 7))
	events := 0
	for _, line := range proseLines(r) {
		for _, profile := range []Profile{ProfileV1, ProfileV2} {
			_, ok, err := parseLine(line, profile)
			if plainProse(line) {
				require.False(t, ok, "%q", line)
				require.NoError(t, err, "%q", line)
			} else if ok {
				events++
			}
		}
	}
	require.Greater(t, events, 10, "the lines hold events")
}

// TestExtractSkipsProseExactly: Extract gives the events and errors a
// line-by-line ExtractLine of every line gives.
func TestExtractSkipsProseExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 8))
	lines := proseLines(r)
	for i := range 200 {
		var sb strings.Builder
		for range 1 + r.IntN(30) {
			sb.Write(lines[r.IntN(len(lines))])
			sb.WriteString([]string{"\n", "\r\n", "\n\n"}[r.IntN(3)])
		}
		src := []byte(sb.String())
		doc := [32]byte{byte(i)}
		got, gotErr := Extract(src, doc, ProfileV2)
		var want []Event
		var wantErr error
		ForEachLine(src, func(line Line) error {
			e, ok, err := ExtractLine(doc, line.Number, line.Start, line.Text, ProfileV2)
			if err != nil {
				wantErr = err
				return err
			}
			if ok {
				want = append(want, e)
			}
			return nil
		})
		require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(gotErr), "%q", src)
		if wantErr == nil {
			require.Equal(t, want, got, "%q", src)
		}
	}
}

// FuzzPlainProse: whatever the line, a line plainProse skips is prose.
func FuzzPlainProse(f *testing.F) {
	for _, line := range proseLines(rand.New(rand.NewPCG(13, 9)))[:40] {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !plainProse(line) {
			return
		}
		for _, profile := range []Profile{ProfileV1, ProfileV2} {
			_, ok, err := parseLine(line, profile)
			if ok || err != nil {
				t.Fatalf("%q: plainProse, but parseLine gives %v, %v", line, ok, err)
			}
		}
	})
}
