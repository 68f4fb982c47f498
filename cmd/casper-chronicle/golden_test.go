package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const goldenDir = "../../testdata/golden"

type transcript struct {
	Commands []struct {
		Argv   []string `json:"argv"`
		Exit   int      `json:"exit"`
		Stdout string   `json:"stdout"`
	} `json:"commands"`
	Files map[string]json.RawMessage `json:"files"`
}

// goldenSetup lists the files a case starts with besides input.txt: the
// legacy case begins with the original tool's V1 store and a historical V1
// QUERY receipt already on disk.
var goldenSetup = map[string][]string{
	"g9_legacy_v1_store": {"input.txt.chronicle", "legacy-query.receipt"},
}

// TestGoldenTranscripts replays every golden transcript command by command
// in a fresh directory with relative paths: identical exit codes, identical
// stdout bytes, and at the end exactly the golden files, byte for byte.
func TestGoldenTranscripts(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(goldenDir, "g[0-9]_*"))
	require.NoError(t, err)
	require.Len(t, cases, 10)
	for _, caseDir := range cases {
		name := filepath.Base(caseDir)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(caseDir, "transcript.json"))
			require.NoError(t, err)
			var tr transcript
			require.NoError(t, json.Unmarshal(raw, &tr))

			work := t.TempDir()
			for _, f := range append([]string{"input.txt"}, goldenSetup[name]...) {
				data, err := os.ReadFile(filepath.Join(caseDir, f))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(work, f), data, 0o644))
			}
			for i, c := range tr.Commands {
				got := runIn(t, work, c.Argv...)
				require.Equal(t, c.Exit, got.code, "command %d %q: exit code (stderr %s)", i+1, c.Argv, got.stderr)
				require.Equal(t, c.Stdout, got.stdout, "command %d %q: stdout", i+1, c.Argv)
				if c.Exit == 0 {
					require.Empty(t, got.stderr, "command %d %q: stderr", i+1, c.Argv)
				}
			}
			files := snapshot(t, work)
			require.Len(t, files, len(tr.Files), "files after the transcript: %v", keys(files))
			for f := range tr.Files {
				want, err := os.ReadFile(filepath.Join(caseDir, f))
				require.NoError(t, err)
				require.Equal(t, string(want), string(files[f]), "file %s", f)
			}
		})
	}
}

func keys(m map[string][]byte) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return strings.Join(ks, " ")
}
