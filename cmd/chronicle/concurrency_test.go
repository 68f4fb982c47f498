package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"

	"github.com/stretchr/testify/require"
)

// concurrencyDoc is document i of the batch: prose, and i+1 typed records
// naming Alice, so a reader can tell a whole document from a part of one.
func concurrencyDoc(i int) (string, int) {
	var b strings.Builder
	for line := 0; line < 12000; line++ {
		fmt.Fprintf(&b, "line %d of document %d: alpha beta prose about the ledger and its many entries\n", line, i)
	}
	for e := 0; e <= i; e++ {
		fmt.Fprintf(&b, "@chronicle\tAlice\tPAID_TO\tBob%d\t%d\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", i, e+1, e)
	}
	return b.String(), i + 1
}

// Readers beside a writer, across processes: while one process ingests a
// batch of documents, another runs every read command in a loop; every
// read succeeds and sees only whole documents, and a second writer gets
// through between the batch's groups (of two files here, so that the
// readers see the batch grow).
func TestReadersBesideWriter(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	const docs = 24
	events := map[string]int{}
	for i := 0; i < docs; i++ {
		text, n := concurrencyDoc(i)
		name := fmt.Sprintf("batch/doc%02d.txt", i)
		w.write(name, text)
		events[name] = n
	}
	w.write("first.txt", "@chronicle\tAlice\tBORROWED_FROM\tBob\t100\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	w.write("second-writer.txt", "@chronicle\tCarol\tPAID_TO\tDave\t5\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	events["first.txt"], events["second-writer.txt"] = 1, 1
	w.ok("ingest", "first.txt")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	batch := exec.CommandContext(ctx, chronicleBin, "--db="+w.db, "ingest", "batch", "--wait=20s", "--commit-every=2")
	batch.Dir, batch.Env = w.dir, baseEnv()
	var batchOut strings.Builder
	batch.Stdout, batch.Stderr = &batchOut, &batchOut
	require.NoError(t, batch.Start())
	done := make(chan error, 1)
	go func() { done <- batch.Wait() }()

	// docs is read between every two other reads: under load a round may
	// outlast most of the batch, and the growing count must still be seen.
	var reads [][]string
	for _, argv := range [][]string{
		{"show", "first.txt", "1"},
		{"query", "first.txt", "Did Alice repay Bob?"},
		{"claim", "first.txt", "Alice", "owns", "Book"},
		{"find", "alpha beta", "--json"},
		{"find", "--doc", "first.txt", "Alice"},
		{"entity", "Alice", "--json"},
		{"entities"},
		{"receipts"},
		{"stats", "--json"},
	} {
		reads = append(reads, []string{"docs", "--json"}, argv)
	}
	var mu sync.Mutex
	var failures []string
	rounds, seenDocs := 0, map[int]bool{}
	second := false
	for running := true; running; {
		select {
		case err := <-done:
			require.NoError(t, err, "the batch ingest:\n%s", batchOut.String())
			running = false
			continue
		default:
		}
		rounds++
		for _, argv := range reads {
			r := w.run(append(argv, "--wait=20s")...)
			if r.code != 0 {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%q: %s", argv, r))
				mu.Unlock()
				continue
			}
			if argv[0] == "docs" {
				n := 0
				for _, line := range lines(r.stdout) {
					var d docInfo
					require.NoError(t, json.Unmarshal([]byte(line), &d), line)
					require.Equal(t, events[d.Names[0]], d.Events, "%s is listed whole", d.Names[0])
					n++
				}
				seenDocs[n] = true
			}
		}
		if !second {
			// A second writer waits for a commit of the batch, then gets in.
			w.ok("ingest", "second-writer.txt", "--wait=20s")
			second = true
		}
	}
	require.Empty(t, failures)
	require.True(t, second)
	require.Len(t, w.docs(), docs+2)
	t.Logf("%d rounds of %d reads during the batch; document counts seen: %v", rounds, len(reads), seenDocs)
	require.GreaterOrEqual(t, len(seenDocs), 2, "the readers got in while the batch grew")
	require.Contains(t, w.ok("check"), fmt.Sprintf("ok: %d documents checked", docs+2))
}

// A writer waits for a reader up to --wait, then names the process that
// holds the archive.
func TestWriterWaitsForReader(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("a.txt", "alpha\n")
	w.write("b.txt", "beta\n")
	w.ok("ingest", "a.txt")
	a, err := db.Open(w.db, db.Options{ReadOnly: true})
	require.NoError(t, err)
	r := w.run("ingest", "b.txt", "--wait=300ms")
	require.Equal(t, 11, r.code, "%s", r)
	require.Contains(t, r.stderr, fmt.Sprintf("process %d holds it (waited 300ms", os.Getpid()))
	require.Less(t, r.elapsed, 3*time.Second)
	// CHRONICLE_WAIT sets the same bound; a bad value is a usage error.
	r = runBin(t, chronicleBin, w.dir, []string{"CHRONICLE_WAIT=200ms"}, "--db="+w.db, "ingest", "b.txt")
	require.Equal(t, 11, r.code, "%s", r)
	require.Contains(t, r.stderr, "waited 200ms")
	r = runBin(t, chronicleBin, w.dir, []string{"CHRONICLE_WAIT=soon"}, "--db="+w.db, "docs")
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, `CHRONICLE_WAIT wants a positive duration such as 500ms, 5s or 2m, got "soon"`)
	// Readers never wait for readers.
	require.Contains(t, w.ok("docs", "--wait=100ms"), "a.txt")
	require.NoError(t, a.Close())
	w.ok("ingest", "b.txt")
	require.FileExists(t, filepath.Join(w.dir, "b.txt"))
}

// SIGKILL at any point of the very first ingest leaves either no archive
// or one that every command reads: never an empty or half-made file.
func TestKillDuringFirstIngest(t *testing.T) {
	t.Parallel()
	for _, delay := range []time.Duration{0, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
		20 * time.Millisecond, 40 * time.Millisecond, 80 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			w := newWS(t)
			for i := 0; i < 4; i++ {
				text, _ := concurrencyDoc(i)
				w.write(fmt.Sprintf("batch/doc%d.txt", i), text)
			}
			cmd := exec.Command(chronicleBin, "--db="+w.db, "ingest", "batch")
			cmd.Dir, cmd.Env = w.dir, baseEnv()
			require.NoError(t, cmd.Start())
			time.Sleep(delay)
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			if _, err := os.Stat(w.db); os.IsNotExist(err) {
				return // killed before the archive existed: nothing is left
			}
			st, err := os.Stat(w.db)
			require.NoError(t, err)
			require.NotZero(t, st.Size(), "never an empty archive")
			require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
			w.ok("docs")
			require.Contains(t, w.ok("check"), "ok: ")
			w.ok("ingest", "batch") // and the ingest resumes
			require.Len(t, w.docs(), 4)
		})
	}
}

// Every read works on an archive that cannot be written: a read-only bind
// mount (as root, as CI runs; a 0444 file stops no root process), and a
// 0444 file when the tests run as another user. Writes fail with one line.
func TestReadOnlyArchive(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	w.ok("query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?", "--receipt", "q.receipt")
	w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "rows.jsonl")
	ro := readOnlyCopy(t, w.db)
	run := func(args ...string) result {
		return runBin(t, chronicleBin, w.dir, nil, append([]string{"--db=" + ro}, args...)...)
	}
	for _, argv := range [][]string{
		{"docs"}, {"show", "testdata/samples/alice-bob-en.txt"}, {"stats"},
		{"query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?"},
		{"claim", "testdata/samples/alice-bob-en.txt", "Alice", "owns", "Book"},
		{"find", "Saud"}, {"find", "--doc", "testdata/samples/alice-bob-en.txt", "Saud"},
		{"find", "Saud", "--receipt", "-"}, {"entity", "Saud"}, {"entities"},
		{"receipts", "--verify"}, {"verify", "q.receipt"}, {"claims", "list"}, {"claims", "verify", "rows.jsonl"},
		{"check"},
	} {
		r := run(argv...)
		require.Equal(t, 0, r.code, "%q on a read-only archive: %s", argv, r)
	}
	for _, argv := range [][]string{{"ingest", "testdata/samples"}, {"query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?", "--keep"}} {
		r := run(argv...)
		require.Equal(t, 1, r.code, "%q: %s", argv, r)
		require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %s", r.stderr)
		require.Contains(t, r.stderr, "archive "+ro)
		require.NotContains(t, r.stderr, "runtime error")
	}
}

// writerBeside runs `chronicle COMMAND` on an archive of 30 documents of
// about 4 MB and, 300 ms after it started, ingests one more document; it
// requires the ingest to have committed before COMMAND ended, and returns
// COMMAND's output and the workspace.
func writerBeside(t *testing.T, command string) (string, *ws) {
	t.Helper()
	w := newWS(t)
	for i := 0; i < 30; i++ {
		text, _ := concurrencyDoc(i)
		w.write(fmt.Sprintf("batch/doc%02d.txt", i), strings.Repeat(text, 4))
	}
	w.write("late.txt", "@chronicle\tLate\tPAID_TO\tBob\t1\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n")
	w.ok("ingest", "batch")

	long := exec.Command(chronicleBin, "--db="+w.db, command)
	long.Dir, long.Env = w.dir, baseEnv()
	var out strings.Builder
	long.Stdout, long.Stderr = &out, &out
	start := time.Now()
	require.NoError(t, long.Start())
	time.Sleep(300 * time.Millisecond)
	r := w.run("ingest", "late.txt", "--wait=30s")
	ingested := time.Since(start)
	require.Equal(t, 0, r.code, "%s", r)
	require.NoError(t, long.Wait(), out.String())
	ended := time.Since(start)
	t.Logf("ingest committed after %s, %s ended after %s", ingested, command, ended)
	require.Less(t, ingested, ended, "the writer got in before %s ended", command)
	return out.String(), w
}

// A long check lets a writer in: it releases the archive between
// documents (with a pause longer than the lock's poll every half second),
// so an ingest started during the check commits before the check ends,
// and the document it added is checked too.
func TestWriterBesideCheck(t *testing.T) {
	t.Parallel()
	out, _ := writerBeside(t, "check")
	require.Contains(t, out, "ok: 31 documents checked", "the document added meanwhile is checked too")
}

// A reindex lets a writer in between its batches: the writer finds the
// rebuild marked, finishes it, then ingests; the reindex ends without
// error, and the archive checks.
func TestWriterBesideReindex(t *testing.T) {
	t.Parallel()
	out, w := writerBeside(t, "reindex")
	require.Contains(t, out, "reindexed ")
	require.Contains(t, w.ok("check"), "ok: 31 documents checked")
	require.Contains(t, w.ok("find", "Late", "--text"), "late.txt")
}

// readOnlyCopy puts a copy of the archive file src where it cannot be
// written: a read-only bind mount for root (whom permissions do not stop),
// else a file without write permission. It returns the copy's path.
func readOnlyCopy(t *testing.T, src string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "archive.db")
	require.NoError(t, os.WriteFile(path, data, 0o444))
	if os.Geteuid() != 0 {
		return path
	}
	mnt := t.TempDir()
	for _, args := range [][]string{{"--bind", dir, mnt}, {"-o", "remount,ro,bind", mnt}} {
		out, err := exec.Command("mount", args...).CombinedOutput()
		require.NoError(t, err, "mount %q: %s", args, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return filepath.Join(mnt, "archive.db")
}

// TestReadOnlyOldSchema: an archive of an older schema is read after a
// one-time upgrade; where it cannot be written, a read says so in one line
// (what it needs, and that `migrate` on a writable copy does it), with its
// own JSON kind, and the file stays as it was. A writable copy then reads.
func TestReadOnlyOldSchema(t *testing.T) {
	t.Parallel()
	ro := readOnlyCopy(t, "../../testdata/archives/schema12.db")
	before, err := os.ReadFile(ro)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, argv := range [][]string{{"docs"}, {"find", "Saud"}, {"check"}} {
		r := runBin(t, chronicleBin, dir, nil, append([]string{"--db=" + ro}, argv...)...)
		require.Equal(t, 1, r.code, "%q: %s", argv, r)
		require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %s", r.stderr)
		require.Contains(t, r.stderr, "archive "+ro+": it needs an upgrade before it is read, and cannot be written here")
		require.Contains(t, r.stderr, "written with schema 12")
		require.Contains(t, r.stderr, "`chronicle migrate`")
		require.NotContains(t, r.stderr, "reads work")
	}
	r := runBin(t, chronicleBin, dir, nil, "--db="+ro, "docs", "--json")
	require.Equal(t, 1, r.code, "%s", r)
	var e map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stderr), &e), r.stderr) // errors go to stderr, as JSON too
	require.Equal(t, "needs_upgrade", e["error"])
	require.Equal(t, ro, e["archive"])
	after, err := os.ReadFile(ro)
	require.NoError(t, err)
	require.Equal(t, before, after, "the archive changed")

	rw := filepath.Join(dir, "copy.db")
	require.NoError(t, os.WriteFile(rw, before, 0o600))
	r = runBin(t, chronicleBin, dir, nil, "--db="+rw, "docs")
	require.Equal(t, 0, r.code, "%s", r)
}
