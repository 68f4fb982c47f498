package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnknownArguments: casper-chronicle keeps the original's behaviour
// for every argument it does not know, including the conventions other
// tools have (--version, version, -h, --help, help) and a known command
// with the wrong number of arguments: the usage block of CONTRACT 1 on stderr
// with argv[0] as typed, nothing on stdout, exit 2 and no file written.
func TestUnknownArguments(t *testing.T) {
	usage := "usage:\n  %[1]s ingest FILE\n  %[1]s query STORE \"QUESTION\"\n  %[1]s find STORE \"TERMS\"\n" +
		"  %[1]s claim STORE SUBJECT PREDICATE OBJECT\n  %[1]s verify RECEIPT\n  %[1]s --self-check\n  %[1]s --benchmark\n"
	for _, args := range [][]string{
		{}, {"--version"}, {"version"}, {"-v"}, {"-V"}, {"-h"}, {"--help"}, {"help"}, {"help", "ingest"},
		{"--self-check", "x"}, {"--benchmark", "x"}, {"ingest"}, {"ingest", "a", "b"}, {"query", "s"},
		{"find", "s", "t", "u"}, {"claim", "s", "a", "b"}, {"verify"}, {"Ingest", "a.txt"}, {"--ingest", "a.txt"},
		{""}, {"docs"}, {"--json", "verify", "r"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"a.txt": "Alice owns Book.\n"})
			before := snapshot(t, dir)
			r := runIn(t, dir, args...)
			require.Equal(t, 2, r.code)
			require.Empty(t, r.stdout)
			require.Equal(t, strings.ReplaceAll(usage, "%[1]s", binary), r.stderr)
			require.Equal(t, before, snapshot(t, dir), "files changed")
		})
	}
}
