package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpGapsSuggest: a misspelt name after help, a misspelt claims verb
// and a one-letter flag each get a "did you mean" (exit 2, one line).
func TestHelpGapsSuggest(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "fnd"}, `chronicle help: unknown command "fnd"; did you mean "find"?` + "\n"},
		{[]string{"help", ".mde"}, `chronicle help: unknown command ".mde"; did you mean ".mode"?` + "\n"},
		{[]string{"claims", "chek", "x"}, `chronicle claims: unknown claims command "chek" (check, read, verify or list); did you mean "check"?` + "\n"},
		{[]string{"-V"}, "chronicle: unknown flag -V; did you mean --version, --verify or -h? `chronicle help` lists the commands and their flags\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := w.raw(nil, tc.args...)
			require.Equal(t, 2, r.code, "%s", r)
			require.Empty(t, r.stdout)
			require.Equal(t, tc.want, r.stderr)
		})
	}
}

// TestHelpGapsSessionCommands: the CLI's help NAME explains the session
// commands as a session does, in text and as a JSON line marked session;
// help names every global flag.
func TestHelpGapsSessionCommands(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, name := range []string{".mode", `\q`, ".read"} {
		t.Run(name, func(t *testing.T) {
			cli := w.raw(nil, "help", name)
			require.Equal(t, 0, cli.code, "%s", cli)
			session := w.raw(nil, "-c", "help "+name)
			require.Equal(t, 0, session.code, "%s", session)
			require.Equal(t, session.stdout, cli.stdout)
			require.True(t, strings.HasPrefix(cli.stdout, "usage: "+name), cli.stdout)

			js := w.raw(nil, "help", name, "--json")
			require.Equal(t, 0, js.code, "%s", js)
			var e map[string]any
			require.NoError(t, json.Unmarshal([]byte(js.stdout), &e))
			require.Equal(t, name, e["name"])
			require.Equal(t, true, e["session"])
		})
	}
	r := w.raw([]string{"COLUMNS=80"}, "help")
	require.Contains(t, r.stdout, "every command takes\n--db PATH, --wait DURATION, --json and --text.\n")
}

// TestHelpGapsExamplesWhole: at any width an example line is printed whole
// (it is meant to be copied), even where it is wider than the terminal.
func TestHelpGapsExamplesWhole(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	for _, tc := range []struct {
		columns string
		args    []string
		example string
	}{
		{"50", []string{"help", "query"}, `  query testdata/samples/ahmed-khalid-ar.txt "هل سدد أحمد دين خالد؟"`},
		{"40", []string{"help", "claims"}, "  claims check testdata/claims/agent-answer.jsonl --out rows.jsonl"},
		{"30", []string{"-c", "help .read"}, "  .read"},
	} {
		t.Run(tc.columns+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			r := w.raw([]string{"COLUMNS=" + tc.columns}, tc.args...)
			require.Equal(t, 0, r.code, "%s", r)
			require.Contains(t, r.stdout, "example:\n"+tc.example)
		})
	}
}

// TestHelpGapsPlurals: one matching line, one event and one claim are
// singular.
func TestHelpGapsPlurals(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	path := w.write("one.txt", "Alice paid Bob.\n")
	out := w.ok("ingest", path, "--text")
	require.Regexp(t, `  1 event\n$`, out)
	out = w.ok("find", "--doc", path, "Alice", "--text")
	require.Regexp(t, `^MATCHES  1 matching line in `, out)
	r := w.run("entities", "Zz", "--text")
	require.Equal(t, "no entity name starts with Zz (`entities` lists every name)\n", r.stdout, "%s", r)
}
