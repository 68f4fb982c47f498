package repl

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/stretchr/testify/require"
)

// TestFitLine: a line that fits, a JSON line and a too-narrow width are
// left alone; a longer line wraps at spaces (or TABs) with its last
// column's hanging indent (the last column that starts by half the
// width), a path too wide for that column goes on a line of its own, less
// indented, rather than being cut, a word wider than a line is cut, and
// no output line is wider than the width while every word survives in
// order.
func TestFitLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		line  string
		width int
		want  []string
	}{
		{"fits", "VALID  0361ee95613c  INGEST  a.txt", 80, []string{"VALID  0361ee95613c  INGEST  a.txt"}},
		{"json", `{"a":"` + strings.Repeat("x ", 60) + `"}`, 40, []string{`{"a":"` + strings.Repeat("x ", 60) + `"}`}},
		{"too narrow", strings.Repeat("word ", 10), 10, []string{strings.Repeat("word ", 10)}},
		{"hanging column", "  ingest PATH...    add files (directories are walked in lexical order)", 50,
			[]string{"  ingest PATH...    add files (directories are", "                    walked in lexical order)"}},
		{"paragraph", "show or set the output mode of the following commands", 24,
			[]string{"show or set the output", "mode of the following", "commands"}},
		{"long word cut", "NAMES  " + strings.Repeat("a", 50), 30,
			[]string{"NAMES", "    aaaaaaaaaaaaaaaaaaaaaaaaaa", "    aaaaaaaaaaaaaaaaaaaaaaaa"}},
		{"tab breaks", "x.txt:2  @chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR", 30,
			[]string{"x.txt:2  @chronicle\tAlice", "         BORROWED_FROM\tBob", "         100\tSAR"}},
		{"arabic", "VALID  771a63f86ddc  QUERY  هل سدد أحمد دين خالد؟", 40,
			[]string{"VALID  771a63f86ddc  QUERY  هل سدد أحمد", "       دين خالد؟"}},
		{"under the path column", "25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did Alice repay Bob?", 60,
			[]string{"25c907ef1fe6  QUERY   testdata/samples/alice-bob-en.txt  Did", "                      Alice repay Bob?"}},
		{"path on its own line", "9960acaeeef8  INGEST  testdata/stories/1-loan-agreement-en.txt", 45,
			[]string{"9960acaeeef8  INGEST", "    testdata/stories/1-loan-agreement-en.txt"}},
		{"path at the margin", "ab  " + strings.Repeat("p", 39) + " x", 40,
			[]string{"ab", " " + strings.Repeat("p", 39), "    x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fitLine(tc.line, tc.width)
			require.Equal(t, tc.want, got)
			if tc.width >= minWrap && !strings.HasPrefix(tc.line, "{") {
				for _, l := range got {
					require.LessOrEqual(t, displayWidth(l, 0), tc.width, "%q", l)
				}
			}
			if tc.name != "long word cut" {
				require.Equal(t, strings.Fields(tc.line), strings.Fields(strings.Join(got, " ")), "words lost or reordered")
			}
		})
	}
}

// TestWrapWriter: lines are fitted as their newlines arrive, across
// writes, and the unterminated rest at Flush.
func TestWrapWriter(t *testing.T) {
	var b strings.Builder
	ww := &wrapWriter{w: &b, width: 20}
	for _, p := range []string{"one two three ", "four five six\nseven", " eight"} {
		_, err := ww.Write([]byte(p))
		require.NoError(t, err)
	}
	require.Equal(t, "one two three four\nfive six\n", b.String())
	require.NoError(t, ww.Flush())
	require.Equal(t, "one two three four\nfive six\nseven eight", b.String())
}

// TestPagerColour: less with LESS unset gets LESS=R and the colour; less
// with R in LESS keeps it; less told otherwise and any other pager get
// the output without escapes.
func TestPagerColour(t *testing.T) {
	coloured := []byte("  a.txt:4  [1]  \x1b[1;7mSaud\x1b[0m paid\n")
	plain := []byte("  a.txt:4  [1]  Saud paid\n")
	for _, tc := range []struct {
		pager, less string
		unset       bool
		want        []byte
		env         []string
	}{
		{pager: "less", unset: true, want: coloured, env: []string{"LESS=R"}},
		{pager: "/usr/bin/less -S", unset: true, want: coloured, env: []string{"LESS=R"}},
		{pager: "less", less: "FRX", want: coloured},
		{pager: "less", less: "FX", want: plain},
		{pager: "less", less: "", want: plain},
		{pager: "more", unset: true, want: plain},
		{pager: "cat", less: "R", want: plain},
		{pager: "sed 's/^/| /'", unset: true, want: plain},
	} {
		t.Run(tc.pager+" LESS="+tc.less, func(t *testing.T) {
			t.Setenv("LESS", tc.less)
			if tc.unset {
				unsetEnv(t, "LESS")
			}
			out, env := pagerColour(coloured, tc.pager)
			require.Equal(t, string(tc.want), string(out))
			require.Equal(t, tc.env, env)
		})
	}
}

// TestVersionFrom: the stamped module version and VCS settings, a build
// from a modified tree, and the fallbacks of an unstamped build.
func TestVersionFrom(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "false"}}}
	modified := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "fedcba"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		ok   bool
		want versionInfo
	}{
		{"stamped", stamped, true, versionInfo{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567"}},
		{"modified", modified, true, versionInfo{Version: "(devel)", Commit: "fedcba", Modified: true}},
		{"no module version", &debug.BuildInfo{}, true, versionInfo{Version: unstamped, Commit: unstamped}},
		{"no build info", nil, false, versionInfo{Version: unstamped, Commit: unstamped}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Go, tc.want.Schema = runtime.Version(), db.SchemaVersion
			require.Equal(t, tc.want, versionFrom(tc.info, tc.ok))
		})
	}
}

// TestVersionLinkerStamp: make build's -X stamp fills what a toolchain
// without VCS stamping leaves out; the toolchain's own stamp wins.
func TestVersionLinkerStamp(t *testing.T) {
	defer func(v, c, m string) { stampedVersion, stampedCommit, stampedModified = v, c, m }(stampedVersion, stampedCommit, stampedModified)
	stampedVersion, stampedCommit, stampedModified = "bf61bf7-dirty", "bf61bf7ca88184879c2d932a76500a73cced489f", "true"
	got := versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, true)
	require.Equal(t, "bf61bf7-dirty", got.Version)
	require.Equal(t, "bf61bf7ca88184879c2d932a76500a73cced489f", got.Commit)
	require.True(t, got.Modified)
	got = versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123"}, {Key: "vcs.modified", Value: "false"}}}, true)
	require.Equal(t, versionInfo{Version: "v1.2.3", Commit: "0123", Go: runtime.Version(), Schema: db.SchemaVersion}, got)
}

// unsetEnv unsets name for the test (t.Setenv first, which restores it).
func unsetEnv(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	require.NoError(t, os.Unsetenv(name))
}
