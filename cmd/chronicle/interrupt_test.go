package main

import (
	"bufio"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestInterruptedIngest: SIGINT during a batch ingest of the CLI stops it
// at the next file, once the group gathered so far commits: it says how
// many files were not ingested and which is the first of them, exits 130,
// and the files before it are in the archive, whole (check passes); the
// rest are not.
func TestInterruptedIngest(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	const n = 200
	for i := range n {
		w.write(fmt.Sprintf("batch/note-%03d.txt", i), fmt.Sprintf("note %d\n%s", i, strings.Repeat("Alice owns Book.\n", 50)))
	}
	// Groups of 10: the first outcome line comes with the first group's
	// commit, well before the end of the batch.
	cmd, stdout, stderr := w.start(t, "--db="+w.db, "ingest", "batch", "--commit-every=10")
	// Interrupt once the first outcome line shows the batch is running.
	sc := bufio.NewScanner(stdout)
	require.True(t, sc.Scan(), "an outcome line")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	var outcomes []string
	outcomes = append(outcomes, sc.Text())
	for sc.Scan() {
		outcomes = append(outcomes, sc.Text())
	}
	require.Equal(t, 130, exitCodeWithin(t, cmd, 30*time.Second, "the interrupted ingest"), "stderr: %s", stderr.String())

	m := regexp.MustCompile(`^chronicle ingest: interrupted; (\d+) of 200 files not ingested \(the first is (batch/note-\d{3}\.txt)\)\n$`).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, "stderr: %q", stderr.String())
	left, _ := strconv.Atoi(m[1])
	require.Greater(t, left, 0)
	require.Len(t, outcomes, n-left, "one outcome line per file ingested")
	require.Equal(t, fmt.Sprintf("batch/note-%03d.txt", n-left), m[2], "the first file not ingested")
	docs := w.docs()
	require.Len(t, docs, n-left)
	for i, d := range docs {
		require.Equal(t, []string{fmt.Sprintf("batch/note-%03d.txt", i)}, d.Names)
	}
	require.Contains(t, w.ok("check"), fmt.Sprintf("ok: %d documents checked", n-left))
	// Ingesting again finishes the batch.
	w.ok("ingest", "batch")
	require.Len(t, w.docs(), n)
}
