package repl

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/stretchr/testify/require"
)

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
