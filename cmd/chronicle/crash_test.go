package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestKillDuringBatchIngest (db/RELIABILITY.md). A batch ingest killed with
// SIGKILL at random moments never leaves a partial document or an archive
// that check rejects; every document present is complete and whole, and
// re-running the batch completes it; the archive's log agrees with the
// documents after each kill, and every later log extends the first
// checkpoint saved. Files commit in groups: the test runs
// with groups of 4 large documents (so that kills land between groups) and
// with the default group size over 2,500 small files.
func TestKillDuringBatchIngest(t *testing.T) {
	tests := []struct {
		name        string
		docs, bytes int
		rounds      int
		flags       []string
		needPartial bool // some kill must land between two groups
	}{
		{"groups of 4 large documents", 24, 150_000, 8, []string{"--commit-every=4"}, true},
		{"default groups of small documents", 2500, 200, 4, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { killDuringBatchIngest(t, tc.docs, tc.bytes, tc.rounds, tc.flags, tc.needPartial) })
	}
}

func killDuringBatchIngest(t *testing.T, n, size, rounds int, flags []string, needPartial bool) {
	w := newWS(t)
	r := rand.New(rand.NewSource(7))
	want := map[string]string{} // document SHA-256 → name
	for i := 0; i < n; i++ {
		var b strings.Builder
		for b.Len() < size {
			fmt.Fprintf(&b, "@chronicle\tP%d\tPAID_TO\tQ%d\t%d\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", r.Intn(50), r.Intn(50), r.Intn(999), i)
			fmt.Fprintf(&b, "Line %d of document %d mentions ledger %d.\n", b.Len(), i, r.Int())
		}
		name := fmt.Sprintf("batch/doc%04d.txt", i)
		w.write(name, b.String())
		sum := sha256.Sum256([]byte(b.String()))
		want[hex.EncodeToString(sum[:])] = name
	}
	ingest := append([]string{"ingest", "batch"}, flags...)
	// Time a whole batch in a scratch archive, then kill at random points
	// within that duration.
	full := runBin(t, chronicleBin, w.dir, nil, append([]string{"--db=" + filepath.Join(w.dir, "scratch.db")}, ingest...)...)
	require.Equal(t, 0, full.code, "%s", full)
	partial := 0
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(chronicleBin, append([]string{"--db=" + w.db}, ingest...)...)
		cmd.Dir = w.dir
		cmd.Env = baseEnv()
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		if round%2 == 0 {
			// At a random moment: inside a commit, a preparation, anywhere.
			time.Sleep(time.Duration(float64(full.elapsed) * (0.1 + 0.8*r.Float64())))
		} else {
			// Right after a group has committed (its first outcome line):
			// the next group is being gathered or committed.
			bufio.NewReader(stdout).ReadString('\n')
		}
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
		_ = cmd.Wait()
		if _, err := os.Stat(w.db); err != nil {
			continue // killed before the archive was created
		}
		check := w.run("check")
		require.Equal(t, 0, check.code, "round %d: check after SIGKILL\n%s", round, check)
		// check held the log to the documents; the last signed checkpoint
		// covers it (signed in the transaction that appended), and the
		// first one saved is extended by every later log.
		docs := w.docs()
		if len(docs) > 0 { // else killed before the first group committed: nothing logged
			if _, err := os.Stat(filepath.Join(w.dir, "first.checkpoint")); err != nil {
				w.ok("log", "--out", "first.checkpoint")
			}
			w.ok("log")
			w.ok("log", "verify", "first.checkpoint")
		}
		if len(docs) > 0 && len(docs) < len(want) {
			partial++
		}
		for _, d := range docs {
			name, ok := want[d.SHA256]
			require.True(t, ok, "round %d: unknown document %s", round, d.SHA256)
			require.Equal(t, []string{name}, d.Names)
			data, err := os.ReadFile(filepath.Join(w.dir, name))
			require.NoError(t, err)
			require.Equal(t, int64(len(data)), d.Size, "round %d: %s is whole", round, name)
		}
		// Every landed document is found by a word only it holds, whether
		// or not its grams reached the term index before the kill.
		if len(docs) > 0 {
			last := docs[len(docs)-1]
			num := strings.TrimLeft(strings.TrimSuffix(strings.TrimPrefix(want[last.SHA256], "batch/doc"), ".txt"), "0")
			if num == "" {
				num = "0"
			}
			found := w.run("find", "--json", "T"+num)
			require.Equal(t, 0, found.code, "round %d: %s", round, found)
			require.Contains(t, found.stdout, last.SHA256, "round %d: the last landed document is found", round)
		}
	}
	t.Logf("%d of %d kills landed inside the batch (batch time %s)", partial, rounds, full.elapsed)
	if needPartial {
		require.Positive(t, partial, "no kill landed between two groups of the batch")
	}
	// Finishing the batch lands every document exactly once; the log
	// continues the one the kills left.
	w.ok(ingest...)
	require.Len(t, w.docs(), len(want))
	require.Equal(t, 0, w.run("check").code)
	w.ok("log", "verify", "first.checkpoint")
}

// TestFlippedArchiveBytesNeverCrash (db/RELIABILITY.md). bbolt keeps no page
// checksums, so a flipped byte can send it outside its memory map; every
// command must still end with a one-line error (exit 1) or a clean answer,
// never a crash.
func TestFlippedArchiveBytesNeverCrash(t *testing.T) {
	w := newWS(t)
	w.copyGolden("g1_english_intermediary", "input.txt", "a.txt")
	w.copyGolden("g3_arabic_prose_fixture", "input.txt", "b.txt")
	w.ok("ingest", "a.txt", "b.txt")
	orig := w.read("archive.db")
	r := rand.New(rand.NewSource(3))
	damaged := filepath.Join(w.dir, "damaged.db")
	for i := 0; i < 120; i++ {
		b := append([]byte(nil), orig...)
		off := 2*4096 + r.Intn(len(b)-2*4096) // the two meta pages carry checksums
		b[off] ^= 1 << r.Intn(8)
		require.NoError(t, os.WriteFile(damaged, b, 0o644))
		for _, args := range [][]string{{"check"}, {"find", "Saud"}, {"entity", "Saud"}, {"query", "a.txt", "Did Alice repay Bob?"}} {
			got := runBin(t, chronicleBin, w.dir, nil, append([]string{"--db=" + damaged}, args...)...)
			require.Contains(t, []int{0, 1}, got.code, "flip at %d, %q: %s", off, args, got)
			require.NotContains(t, got.stderr, "goroutine ", "flip at %d, %q crashed", off, args)
		}
	}
}
