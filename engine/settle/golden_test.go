package settle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle/engine"
)

const goldenDir = "../../testdata/golden"

type transcript struct {
	Case     string `json:"case"`
	Commands []struct {
		Argv   []string `json:"argv"`
		Exit   int      `json:"exit"`
		Stdout string   `json:"stdout"`
		Sha256 string   `json:"stdout_sha256"`
	} `json:"commands"`
}

// loadGolden loads the store and transcript of one golden case.
func loadGolden(t testing.TB, dir string) (*engine.Store, transcript) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "transcript.json"))
	require.NoError(t, err)
	var tr transcript
	require.NoError(t, json.Unmarshal(raw, &tr))
	data, err := os.ReadFile(filepath.Join(dir, "input.txt.chronicle"))
	require.NoError(t, err)
	s, err := engine.Load(data)
	require.NoError(t, err)
	return s, tr
}

// goldenQuestion turns a query/claim argv into the question the query path
// runs; ok is false for other commands.
func goldenQuestion(argv []string) (string, bool) {
	switch {
	case len(argv) == 3 && argv[0] == "query":
		return argv[2], true
	case len(argv) == 5 && argv[0] == "claim":
		return ClaimQuestion(argv[2], argv[3], argv[4]), true
	}
	return "", false
}

func TestGoldenQueries(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, dirs, 10)
	checked := 0
	for _, dir := range dirs {
		s, tr := loadGolden(t, dir)
		for i, cmd := range tr.Commands {
			question, ok := goldenQuestion(cmd.Argv)
			if !ok {
				continue
			}
			t.Run(fmt.Sprintf("%s/cmd%02d_%s", tr.Case, i, cmd.Argv[0]), func(t *testing.T) {
				// The transcript string must be the exact recorded bytes.
				sum := sha256.Sum256([]byte(cmd.Stdout))
				require.Equal(t, cmd.Sha256, hex.EncodeToString(sum[:]))
				got, err := Query(s, question)
				switch cmd.Exit {
				case 0:
					require.NoError(t, err)
					want, _, found := strings.Cut(cmd.Stdout, "\n")
					require.True(t, found)
					require.Equal(t, want, string(got))
					// Evaluate yields the same bytes through the structured result.
					r, err := Evaluate(s, question)
					require.NoError(t, err)
					require.Equal(t, got, r.JSON())
				case 1:
					require.ErrorIs(t, err, ErrClaimSyntax)
				default:
					t.Skipf("exit %d is a command-line argument error", cmd.Exit)
				}
				checked++
			})
		}
	}
	require.Equal(t, 23, checked, "query/claim commands in the golden transcripts")
}

// TestGoldenSpecExamples checks the complete outputs quoted in CONTRACT 5.4.
func TestGoldenSpecExamples(t *testing.T) {
	g1, _ := loadGolden(t, filepath.Join(goldenDir, "g1_english_intermediary"))
	got, err := Query(g1, "Did Bob repay Alice?")
	require.NoError(t, err)
	require.Equal(t, `{"status":"UNKNOWN","assessment":"DEBT_SETTLEMENT","question":"Did Bob repay Alice?","debt":null,"settled":{"num":0,"den":1},"limits":"bounded source grammar; question selects exact entities; status evaluates debt settlement, not question truth; integrity is not truth","evidence":[]}`, string(got))

	g0, _ := loadGolden(t, filepath.Join(goldenDir, "g0_minimal_literal"))
	got, err = Query(g0, "@claim\tAlice\towns\tBook")
	require.NoError(t, err)
	require.Equal(t, `{"status":"EXACT_STATED","assessment":"LITERAL_RETRIEVAL","question":"@claim\tAlice\towns\tBook","subject":"Alice","predicate":"owns","object":"Book","limits":"three-token literal retrieval; no inference or truth guarantee","evidence":[{"event_id":"9a72befefa66ab0f822b0766d750f32ebe1f2bca71cd4d91ad126beddd47a926","evidence_span_id":"2b7c2f72294ff36e9930a019b70f5242d9661db08280b053c59d39774239cdcd","document_sha256":"36c5ab5b586ba2213e5229e7c4d27878248491b83f25588454be93a11c7e3dd3","byte_start":0,"byte_end":16,"line_start":1,"line_end":1,"exact_span_sha256":"c5c1ddaf6bbc3fae666cc9b53978906bf2f40b1ee39570942638120629ac769f","text":"Alice owns Book."}]}`, string(got))
}

// TestGoldenStructured checks the structured settlement of the golden cases
// against what their JSON shows, so that the human view stays in step.
func TestGoldenStructured(t *testing.T) {
	cases := []struct {
		dir, question string
		status        Status
		debt, settled string
		lines         []uint64
		counted       []uint64
		flags         string
	}{
		{"g1_english_intermediary", "Did Alice repay Bob?", Partial, "100/1 SAR Alice→Bob", "40/1", []uint64{2, 4, 5, 6}, []uint64{5}, "related"},
		{"g2_conflict_escaping", "Alice Bob", Conflict, "100/1 SAR Alice→Bob", "0/1", []uint64{2, 3, 4}, nil, "contradicted"},
		{"g3_arabic_prose_fixture", "هل سدد أحمد دين خالد؟", Partial, "100/1 SAR أحمد→خالد", "40/1", []uint64{2, 4, 6, 8}, []uint64{6}, "related"},
		{"g4_arabic_typed_fixture", "أحمدان خالد؟", Unknown, "", "0/1", nil, nil, ""},
		{"g7_rationals", "A B", Supported, "3/4 SAR A→B", "3/4", []uint64{1, 2, 3}, []uint64{2, 3}, ""},
		{"g7_rationals", "C D", Conflict, "1/1 SAR C→D", "1/4611686018427387904", []uint64{4, 5, 6}, []uint64{5}, "overflow"},
		{"g8_duplicates_ambiguity", "A B", Partial, "100/1 SAR A→B", "50/1", []uint64{1, 2, 3, 4}, []uint64{3}, "duplicate"},
		{"g8_duplicates_ambiguity", "E F", Unknown, "", "0/1", []uint64{5, 6}, nil, "ambiguous"},
		{"g8_duplicates_ambiguity", "G H", Unknown, "10/1 - G→H", "0/1", []uint64{8}, nil, ""},
		{"g9_legacy_v1_store", "Alice Bob", Supported, "100/1 SAR Alice→Bob", "100/1", []uint64{1, 2}, []uint64{2}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.dir+"/"+tc.question, func(t *testing.T) {
			s, _ := loadGolden(t, filepath.Join(goldenDir, tc.dir))
			got, err := EvaluateSettlement(s, tc.question)
			require.NoError(t, err)
			requireSettlement(t, got, tc.status, tc.debt, tc.settled, tc.lines)
			require.Equal(t, tc.counted, countedLines(got))
			require.Equal(t, tc.flags, flags(got))
		})
	}
}
