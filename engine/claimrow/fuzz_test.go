package claimrow

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fuzzSeedBytes bounds the table lines added to the fuzz corpus, so that
// the mutator works on short rows; the long ones run in TestReadRow.
const fuzzSeedBytes = 2048

func FuzzReadRow(f *testing.F) {
	for _, c := range rowCases {
		if len(c.line) <= fuzzSeedBytes {
			f.Add(c.line)
		}
	}
	// Rows the archive's checker wrote, when there are any.
	golden, err := filepath.Glob(goldenGlob)
	require.NoError(f, err)
	for _, file := range golden {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		for _, line := range splitJSONLines(data) {
			if len(line) <= fuzzSeedBytes {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		v, err := ReadRow(line)
		if _, perr := ParseLine(line, RowBytes); perr != nil {
			require.ErrorIs(t, err, ErrJSON, "a line ParseLine refuses is refused as JSON")
			return
		}
		if err != nil {
			require.ErrorIs(t, err, ErrRow)
			require.NotEmpty(t, err.Error())
			return
		}
		c := Canonical(v)
		// Canonical JSON is never longer than a line that reads as it, so
		// the reader's copyJson(row, ROW_BYTES) bound is the line bound.
		require.LessOrEqual(t, len(c), len(line))
		again, err := ReadRow(c)
		require.NoError(t, err, "the canonical form %q of an accepted row", c)
		require.Equal(t, string(c), string(Canonical(again)))
	})
}

func FuzzParseLine(f *testing.F) {
	for _, c := range rowCases {
		if len(c.line) <= fuzzSeedBytes {
			f.Add(c.line)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		v, err := ParseLine(line, RowBytes)
		if err != nil {
			require.ErrorIs(t, err, ErrJSON)
			var se *SyntaxError
			require.True(t, errors.As(err, &se))
			require.GreaterOrEqual(t, se.Offset, 0)
			require.LessOrEqual(t, se.Offset, len(line))
			return
		}
		c := Canonical(v)
		again, err := ParseLine(c, RowBytes)
		require.NoError(t, err, "the canonical form %q of an accepted line", c)
		require.Equal(t, string(c), string(Canonical(again)))
		// A third opinion on the value: what ParseLine accepts is JSON, and
		// encoding/json reads the same value from it and from its
		// canonical form.
		require.True(t, json.Valid(line))
		want := toAny(v)
		for _, text := range [][]byte{line, c} {
			dec := json.NewDecoder(bytes.NewReader(text))
			dec.UseNumber()
			var got any
			require.NoError(t, dec.Decode(&got))
			require.Equal(t, want, got)
		}
	})
}

// toAny converts a Value to what encoding/json decodes with UseNumber.
func toAny(v Value) any {
	switch v.Kind {
	case Null:
		return nil
	case Bool:
		return v.Bool
	case Int:
		return json.Number(strconv.FormatInt(v.Int, 10))
	case String:
		return v.Str
	case Array:
		out := make([]any, 0, len(v.Items))
		for _, item := range v.Items {
			out = append(out, toAny(item))
		}
		return out
	case Object:
		out := make(map[string]any, len(v.Members))
		for _, m := range v.Members {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
	panic("toAny of an absent value")
}

// readCorpusFile reads one file of Go's fuzz corpus format holding a
// single []byte argument.
func readCorpusFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.Len(t, lines, 2, path)
	require.Equal(t, "go test fuzz v1", lines[0], path)
	arg, ok := strings.CutPrefix(lines[1], "[]byte(")
	require.True(t, ok, path)
	arg, ok = strings.CutSuffix(arg, ")")
	require.True(t, ok, path)
	s, err := strconv.Unquote(arg)
	require.NoError(t, err, path)
	return []byte(s)
}

// TestFuzzCorpus holds the committed seed corpus to its names: a
// FuzzReadRow file named refused-* is refused, any other is accepted.
func TestFuzzCorpus(t *testing.T) {
	for _, target := range []string{"FuzzReadRow", "FuzzParseLine"} {
		t.Run(target, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("testdata", "fuzz", target, "*"))
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(files), 10)
			accepted, refused := 0, 0
			for _, f := range files {
				line := readCorpusFile(t, f)
				var err error
				if target == "FuzzReadRow" {
					_, err = ReadRow(line)
					require.Equal(t, strings.HasPrefix(filepath.Base(f), "refused-"), err != nil, "%s: %v", f, err)
				} else {
					_, err = ParseLine(line, RowBytes)
				}
				if err == nil {
					accepted++
				} else {
					refused++
				}
			}
			require.GreaterOrEqual(t, accepted, 3)
			require.GreaterOrEqual(t, refused, 3)
		})
	}
	for _, name := range []string{"valid-compared", "valid-unverified"} {
		_, err := ReadRow(readCorpusFile(t, filepath.Join("testdata", "fuzz", "FuzzReadRow", name)))
		require.NoError(t, err, name)
	}
}
