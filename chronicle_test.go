package chronicle_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle"
)

func openTemp(t *testing.T) (*chronicle.Archive, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := chronicle.Open(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a, path
}

// TestAnswersAreTheOriginalToolsBytes: every query, claim and find of the
// golden transcripts gives, through the API, exactly the stdout the
// original casper-chronicle printed.
func TestAnswersAreTheOriginalToolsBytes(t *testing.T) {
	cases, err := filepath.Glob("testdata/golden/*/transcript.json")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	compared := 0
	for _, tf := range cases {
		dir := filepath.Dir(tf)
		if strings.HasSuffix(dir, "g9_legacy_v1_store") {
			continue // a V1 store the original wrote: `chronicle import`, not Ingest
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(tf)
			require.NoError(t, err)
			var tr struct {
				Commands []struct {
					Argv   []string
					Exit   int
					Stdout string
				}
			}
			require.NoError(t, json.Unmarshal(raw, &tr))
			a, _ := openTemp(t)
			for _, c := range tr.Commands {
				if c.Exit != 0 {
					continue
				}
				var ans *chronicle.Answer
				switch c.Argv[0] {
				case "ingest":
					src, err := os.ReadFile(filepath.Join(dir, c.Argv[1]))
					require.NoError(t, err)
					_, err = a.Ingest(c.Argv[1], src)
					require.NoError(t, err)
					continue
				case "query":
					ans, err = a.Query(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2])
				case "find":
					ans, err = a.FindIn(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2])
				case "claim":
					ans, err = a.Claim(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2], c.Argv[3], c.Argv[4])
				default:
					continue
				}
				require.NoError(t, err, c.Argv)
				// The original prints the result line, then receipt=FILE.
				result, _, ok := strings.Cut(c.Stdout, "\n")
				require.True(t, ok)
				require.Equal(t, result, string(ans.JSON), c.Argv)
				verdict, err := a.Verify(ans.Receipt)
				require.NoError(t, err)
				require.Equal(t, chronicle.Valid, verdict)
				compared++
			}
		})
	}
	require.Greater(t, compared, 20)
}

func TestErrors(t *testing.T) {
	a, path := openTemp(t)
	_, err := a.Ingest("s.txt", []byte("@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"))
	require.NoError(t, err)

	_, err = a.Query("nope.txt", "Did A repay B?")
	require.ErrorIs(t, err, chronicle.ErrUnknownDocument)
	_, err = a.Query("s.txt", "bad \xff")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Claim("s.txt", "A", "has\ttab", "B")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Entity("")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Settle("@claim\tA\tp\tB")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Ingest("", []byte("x\n"))
	require.Error(t, err)

	// A refused source changes nothing.
	before, err := a.Documents()
	require.NoError(t, err)
	_, err = a.Ingest("bad.txt", []byte("ok\n\xff\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "bad.txt")
	after, err := a.Documents()
	require.NoError(t, err)
	require.Equal(t, before, after)

	// A damaged receipt is INVALID with its reason.
	ans, err := a.FindIn("s.txt", "PAID_TO")
	require.NoError(t, err)
	bad := []byte(strings.Replace(string(ans.Receipt), "question_hex:", "question_hex:00", 1))
	verdict, err := a.Verify(bad)
	require.Equal(t, chronicle.Invalid, verdict)
	require.Error(t, err)

	// A reader waits for the writer, then gives up with ErrLocked.
	_, err = chronicle.Open(path, &chronicle.Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond})
	require.ErrorIs(t, err, chronicle.ErrLocked)
	require.NoError(t, a.Close())
	r, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true})
	require.NoError(t, err)
	docs, err := r.Documents()
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Equal(t, []string{"s.txt"}, docs[0].Names)
	require.Len(t, docs[0].SHA256, 64)
	_, err = r.Ingest("t.txt", []byte("x\n"))
	require.Error(t, err, "a read-only archive takes no ingest")
	require.NoError(t, r.Close())

	_, err = chronicle.Open(filepath.Join(t.TempDir(), "missing.db"), &chronicle.Options{ReadOnly: true})
	require.ErrorIs(t, err, chronicle.ErrNoArchive)
}

// TestReceiptsSurviveLaterIngests: a set receipt binds documents #1..#S
// and stays VALID when more documents arrive.
func TestReceiptsSurviveLaterIngests(t *testing.T) {
	a, _ := openTemp(t)
	_, err := a.Ingest("one.txt", []byte("Saud was here.\n"))
	require.NoError(t, err)
	found, err := a.Find("Saud", 0)
	require.NoError(t, err)
	require.Len(t, found.Documents, 1)
	again, err := a.Ingest("again.txt", []byte("Saud was here.\n"))
	require.NoError(t, err)
	require.True(t, again.Reused)
	_, err = a.Ingest("two.txt", []byte("Saud again.\n"))
	require.NoError(t, err)
	verdict, err := a.Verify(found.Receipt)
	require.NoError(t, err)
	require.Equal(t, chronicle.Valid, verdict)
	now, err := a.Find("Saud", 0)
	require.NoError(t, err)
	require.Len(t, now.Documents, 2)
}

// TestIngestFile: a file ingested by path is found by its other spellings;
// a directory, a missing file and one over 8 MiB are refused, changing
// nothing.
func TestIngestFile(t *testing.T) {
	a, _ := openTemp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "loan.txt")
	require.NoError(t, os.WriteFile(path, []byte("@chronicle\tA\tBORROWED_FROM\tB\t10\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"), 0o600))
	got, err := a.IngestFile(path)
	require.NoError(t, err)
	require.Equal(t, []string{path}, got.Document.Names)
	require.Equal(t, 1, got.Document.Events)
	for _, name := range []string{path, filepath.Join(dir, ".", "loan.txt"), filepath.Join(dir, "..", filepath.Base(dir), "loan.txt")} {
		ans, err := a.Query(name, "Did A repay B?")
		require.NoError(t, err, name)
		require.Equal(t, got.Document.SHA256, ans.Document.SHA256)
	}

	big := filepath.Join(dir, "big.txt")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("x\n"), 4<<20+1), 0o600))
	for _, bad := range []string{dir, filepath.Join(dir, "missing.txt"), big} {
		_, err := a.IngestFile(bad)
		require.Error(t, err, bad)
	}
	docs, err := a.Documents()
	require.NoError(t, err)
	require.Len(t, docs, 1)
}
