package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// manyEvents is a source of n typed events, one per line.
func manyEvents(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", i)
	}
	return b.String()
}

// TestRejectionMessages: every kind of rejected file is reported as
// `rejected  FILE:LINE:COL: RULE (byte N)` (FILE alone when no line is at
// fault), naming the file once, then the offending line and a caret under
// the byte; the archive is left without the file, and the JSON record
// carries the same location as fields.
func TestRejectionMessages(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 100) + "\xff" + strings.Repeat("b", 100) + "\n"
	cases := []struct {
		name    string
		content string // written to the file (unless path is given)
		path    string // a path not written by the test
		want    string // the whole stdout
		json    map[string]any
	}{
		{name: "invalid UTF-8", content: "abc\nde\xff\n",
			want: "rejected  f.txt:2:3: invalid UTF-8 sequence (byte 6)\n  2 | de\\xff\n    |   ^\n",
			json: map[string]any{"file": "f.txt", "line": 2.0, "col": 3.0, "byte": 6.0, "rule": "invalid UTF-8 sequence"}},
		{name: "NUL byte", content: "ab\x00c\n",
			want: "rejected  f.txt:1:3: NUL byte (byte 2)\n  1 | ab\\x00c\n    |   ^\n",
			json: map[string]any{"line": 1.0, "col": 3.0, "byte": 2.0, "rule": "NUL byte"}},
		{name: "column in code points", content: "سطر\nأحمد\x00\n",
			want: "rejected  f.txt:2:5: NUL byte (byte 15)\n  2 | أحمد\\x00\n    |     ^\n",
			json: map[string]any{"line": 2.0, "col": 5.0, "byte": 15.0}},
		{name: "long line cut around the byte", content: long,
			want: "rejected  f.txt:1:101: invalid UTF-8 sequence (byte 100)\n" +
				"  1 | …" + strings.Repeat("a", 39) + `\xff` + strings.Repeat("b", 21) + "…\n" +
				"    | " + strings.Repeat(" ", 40) + "^\n"},
		{name: "typed record", content: "Opening prose.\n" + badRecord,
			want: "rejected  f.txt:2:1: @chronicle record has 8 fields, want 9 (byte 15)\n" +
				"  2 | @chronicle\\tAlice\\tBORROWED_FROM\\tBob\\t100\\tSAR\\tT1\\tASSERTED\\tPO…\n    | ^\n"},
		{name: "marker without TAB, CRLF", content: "ok\r\n@chronicles are fun\r\n",
			want: "rejected  f.txt:2:11: line starts with @chronicle but the marker is not followed by a TAB (byte 14)\n" +
				"  2 | @chronicles are fun\n    |           ^\n"},
		{name: "too many events", content: manyEvents(4097),
			want: "rejected  f.txt:4097:1: event 4097 exceeds the limit of 4096 events (byte 256938)\n" +
				"  4097 | @chronicle\\tA\\tPAID_TO\\tB\\t1\\tSAR\\tT4096\\tASSERTED\\tPOSITIVE\\tCON…\n       | ^\n",
			json: map[string]any{"line": 4097.0, "col": 1.0, "byte": 256938.0}},
		{name: "too large", content: strings.Repeat("a", 8<<20+1),
			want: "rejected  f.txt: file is too large: a document is at most 8388608 bytes (8 MiB)\n",
			json: map[string]any{"file": "f.txt", "error": "f.txt: file is too large: a document is at most 8388608 bytes (8 MiB)"}},
		{name: "missing", path: "nowhere/x.txt",
			want: "rejected  nowhere/x.txt: no such file or directory\n",
			json: map[string]any{"file": "nowhere/x.txt", "rule": "no such file or directory"}},
		{name: "unreadable", path: "/proc/self/mem",
			want: "rejected  /proc/self/mem: cannot read it: input/output error\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t)
			path := c.path
			if path == "" {
				path = "f.txt"
				w.write(path, c.content)
			}
			r := w.run("ingest", path)
			require.Equal(t, 1, r.code, "%s", r)
			require.Equal(t, c.want, r.stdout)
			require.Equal(t, 1, strings.Count(lines(r.stdout)[0], path), "the path is named once")
			require.Equal(t, "chronicle ingest: 1 of 1 files rejected\n", r.stderr)
			_, err := os.Stat(w.db)
			require.True(t, os.IsNotExist(err) || len(w.docs()) == 0, "nothing was ingested")

			r = w.run("ingest", "--json", path)
			require.Equal(t, 1, r.code, "%s", r)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &got), r.stdout)
			require.Equal(t, "rejected", got["outcome"])
			require.Equal(t, path, got["path"])
			require.Equal(t, strings.TrimPrefix(lines(c.want)[0], "rejected  "), got["error"])
			for k, v := range c.json {
				require.Equal(t, v, got[k], "JSON field %q", k)
			}
		})
	}
}

// TestRejectedSample: the sample the README shows is rejected as shown.
func TestRejectedSample(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	src, err := filepath.Abs("../../testdata/rejected")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(src, filepath.Join(w.dir, "rejected")))
	r := w.run("ingest", "rejected/bad-utf8.txt")
	require.Equal(t, 1, r.code, "%s", r)
	require.Equal(t, "rejected  rejected/bad-utf8.txt:2:25: invalid UTF-8 sequence (byte 41)\n"+
		"  2 | Bob met Alice at the caf\\xe9 on day two.\n"+
		"    |                         ^\n", r.stdout)
}
