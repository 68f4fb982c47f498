package main

import (
	"fmt"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// TestCommandsBesideGoProgram: a Go program (this test process) keeps an
// archive open for writing with the Go API; the chronicle command, another
// process, reads and writes it meanwhile without waiting, since the
// program's Archive holds the lock only during its calls.
func TestCommandsBesideGoProgram(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("a.txt", "Alice paid Bob.\n")
	w.write("b.txt", "Bob paid Carol.\n")
	a, err := chronicle.Open(w.db, nil)
	require.NoError(t, err)
	defer a.Close()
	_, err = a.IngestFile(w.write("go.txt", "Alice wrote from Go.\n"))
	require.NoError(t, err)
	for _, argv := range [][]string{
		{"docs"},
		{"find", "Alice"},
		{"ingest", "a.txt"},
		{"entity", "Alice"},
		{"ingest", "b.txt"},
	} {
		r := w.run(append(argv, "--wait=300ms")...)
		require.Equal(t, 0, r.code, "%q beside an idle Go writer: %s", argv, r)
		// The program's next call sees what the command wrote.
		docs, err := a.Documents()
		require.NoError(t, err)
		require.NotEmpty(t, docs)
	}
	found, err := a.Find("paid", 0)
	require.NoError(t, err)
	require.Len(t, found.Documents, 2)
}

// TestBusyNamesWait: the command's busy error tells how to wait longer
// with its own flag, --wait, in text and JSON (the Go API names its
// Options.LockTimeout instead: TestLockOnlyForTheCall).
func TestBusyNamesWait(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("a.txt", "alpha\n")
	w.ok("ingest", "a.txt")
	held, err := db.Open(w.db, db.Options{})
	require.NoError(t, err)
	defer held.Close()
	hint := fmt.Sprintf("process %d holds it (waited 200ms; try again when it finishes, or wait longer with --wait)", os.Getpid())
	r := w.run("docs", "--wait=200ms")
	requireOneLineError(t, r, 11, "docs", regexp.QuoteMeta("archive "+w.db+": archive is in use by another process: "+hint))
	e := requireJSONError(t, w.run("docs", "--wait=200ms", "--json"), 11, "busy", "docs", map[string]string{"archive": w.db}, false)
	require.Contains(t, e["message"], hint)
	require.Less(t, r.elapsed, 3*time.Second)
}
