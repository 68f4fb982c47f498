package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testarchive"
	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// helpEntry is one line of `help --json`.
type helpEntry struct {
	Name    string   `json:"name"`
	Args    string   `json:"args"`
	Summary string   `json:"summary"`
	Example string   `json:"example"`
	Verbs   []string `json:"verbs"`
	Flags   []struct {
		Name   string `json:"name"`
		Value  string `json:"value"`
		Help   string `json:"help"`
		Global bool   `json:"global"`
	} `json:"flags"`
}

// helpTable runs `help --json` (args appended) and decodes each line
// strictly (unknown fields fail).
func helpTable(t *testing.T, w *ws, args ...string) []helpEntry {
	t.Helper()
	r := w.raw(nil, append([]string{"help", "--json"}, args...)...)
	require.Equal(t, 0, r.code, "%s", r)
	require.Empty(t, r.stderr)
	var out []helpEntry
	for _, line := range lines(r.stdout) {
		var e helpEntry
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&e), "line %q", line)
		out = append(out, e)
	}
	return out
}

// TestHelpJSON: help --json is the command table as JSON Lines (every
// command once, with its summary, example and flags, the global ones
// marked), help COMMAND --json one line, and an unknown command a usage
// error.
func TestHelpJSON(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	entries := helpTable(t, w)
	names := map[string]bool{}
	for _, e := range entries {
		require.False(t, names[e.Name], "%s twice", e.Name)
		names[e.Name] = true
		require.NotEmpty(t, e.Summary, e.Name)
		require.True(t, strings.HasPrefix(e.Example, e.Name), "%s: example %q", e.Name, e.Example)
		var global []string
		for _, f := range e.Flags {
			require.True(t, strings.HasPrefix(f.Name, "--"), f.Name)
			require.NotEmpty(t, f.Help, f.Name)
			if f.Global {
				global = append(global, f.Name)
			}
		}
		require.Equal(t, []string{"--db", "--wait", "--json", "--text"}, global, e.Name)
	}
	for _, name := range []string{"ingest", "docs", "show", "stats", "query", "settle", "claim", "find", "entity", "entities",
		"receipts", "verify", "export", "import", "migrate", "reindex", "check", "claims", "mcp", "serve", "help", "version"} {
		require.True(t, names[name], "help --json lacks %s", name)
	}

	one := helpTable(t, w, "find")
	require.Len(t, one, 1)
	require.Equal(t, "find", one[0].Name)
	require.Equal(t, "TERMS...", one[0].Args)
	require.Equal(t, "--doc", one[0].Flags[0].Name)
	require.Equal(t, "DOC", one[0].Flags[0].Value)
	require.NotEmpty(t, helpTable(t, w, "claims")[0].Verbs)

	r := w.raw(nil, "help", "nosuch", "--json")
	require.Equal(t, 2, r.code, "%s", r)
}

// TestHelpFits: without a terminal help is laid out for 80 columns, and
// for $COLUMNS when it is narrower; the table views follow $COLUMNS.
func TestHelpFits(t *testing.T) {
	t.Parallel()
	w := makeRunArchive(t)
	for _, tc := range []struct {
		columns string
		width   int
		args    []string
	}{
		{"", 80, []string{"help"}}, {"200", 80, []string{"help"}}, {"60", 60, []string{"help"}}, {"40", 40, []string{"help"}},
		{"", 80, []string{"help", "receipts"}}, {"50", 50, []string{"help", "claims"}},
		{"60", 60, []string{"docs"}}, {"60", 60, []string{"receipts", "--verify"}}, {"60", 60, []string{"stats"}},
		{"60", 60, []string{"claims", "list"}}, {"60", 60, []string{"entities"}},
	} {
		t.Run(tc.columns+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			r := runBin(t, chronicleBin, w.dir, []string{"COLUMNS=" + tc.columns}, tc.args...)
			require.Equal(t, 0, r.code, "%s", r)
			require.NotEmpty(t, r.stdout)
			example := false // an example is never wrapped: it is copied
			for _, line := range lines(r.stdout) {
				if !example {
					require.LessOrEqual(t, columns(line), tc.width, "%q", line)
				}
				example = line == "example:"
			}
		})
	}
}

// makeRunArchive is a copy of the repository's testdata with the
// documents of the archive `make run` builds (the sample stories and the
// settle story, built in process: testarchive.Build) in ./chronicle.db,
// and a kept claims check.
func makeRunArchive(t *testing.T) *ws {
	t.Helper()
	w := newWS(t)
	w.db = filepath.Join(w.dir, "chronicle.db")
	require.NoError(t, os.CopyFS(filepath.Join(w.dir, "testdata"), os.DirFS("../../testdata")))
	testarchive.Build(t, w.db, "testdata/samples", "testdata/stories")
	r := runBin(t, chronicleBin, w.dir, nil, "claims", "check", "testdata/claims/agent-answer.jsonl")
	require.Equal(t, 0, r.code, "%s", r)
	return w
}

var buildMCP testbin.Once

// TestHelpExamples: every example help shows runs, as shown, on the
// sample archive (`chronicle -c EXAMPLE`, the session's quoting), exit 0.
func TestHelpExamples(t *testing.T) {
	t.Parallel()
	_, err := buildMCP.Build(filepath.Dir(chronicleBin), "chronicle-mcp") // `mcp` runs the server beside chronicle
	require.NoError(t, err)
	w := makeRunArchive(t)
	for _, e := range helpTable(t, w) {
		t.Run(e.Name, func(t *testing.T) {
			if e.Name == "serve" { // it serves until Ctrl-C
				requireServeStops(t, w, "-c", e.Example)
				return
			}
			r := runBin(t, chronicleBin, w.dir, nil, "-c", e.Example)
			require.Equal(t, 0, r.code, "help %s: example %q\n%s", e.Name, e.Example, r)
		})
	}
}

// TestVersion: version and --version, as text and JSON: the module
// version and commit the build stamped (or "unknown"), the Go version and
// the archive schema; no archive is opened or created.
func TestVersion(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	commit, modified := "unknown", false
	out, err := exec.Command("go", "version", "-m", chronicleBin).Output()
	require.NoError(t, err)
	if m := regexp.MustCompile(`(?m)^\s+build\s+vcs\.revision=(\S+)`).FindSubmatch(out); m != nil {
		commit = string(m[1])
		modified = regexp.MustCompile(`(?m)^\s+build\s+vcs\.modified=true`).Match(out)
	}
	if modified {
		commit += " (modified)"
	}
	for _, args := range [][]string{{"version"}, {"--version"}, {"--db", w.db, "version"}} {
		r := w.raw(nil, args...)
		require.Equal(t, 0, r.code, "%s", r)
		require.Regexp(t, `^chronicle \S+\ncommit `+regexp.QuoteMeta(commit)+`\n`+regexp.QuoteMeta(runtime.Version())+
			`\narchive schema `+regexp.QuoteMeta(strconv.Itoa(db.SchemaVersion))+"\n$", r.stdout)
		require.Empty(t, r.stderr)
	}
	for _, args := range [][]string{{"version", "--json"}, {"--version", "--json"}, {"--json", "version"}} {
		r := w.raw(nil, args...)
		require.Equal(t, 0, r.code, "%s", r)
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), r.stdout)
		require.Equal(t, 1, len(lines(r.stdout)))
		require.Equal(t, runtime.Version(), v["go"])
		require.Equal(t, float64(db.SchemaVersion), v["schema_version"])
		require.Equal(t, strings.TrimSuffix(commit, " (modified)"), v["commit"])
		require.Equal(t, modified, v["modified"])
		require.NotEmpty(t, v["version"])
	}
	r := w.raw(nil, "version", "extra")
	require.Equal(t, 2, r.code, "%s", r)
	_, err = os.Stat(w.db)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// columns is the terminal width of a line of single-width characters, TABs
// moving to the next multiple of 8.
func columns(line string) int {
	col := 0
	for _, r := range line {
		if r == '\t' {
			col += 8 - col%8
			continue
		}
		col++
	}
	return col
}
