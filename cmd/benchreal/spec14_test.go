package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/engine"

	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	if argv := os.Getenv(peakRSS.OfEnv); argv != "" { // runRSS's helper, started as this binary
		os.Exit(peakRSS.Helper(argv))
	}
	os.Exit(m.Run())
}

// The corpus is the CONTRACT 14 one, by its size and digest.
func TestSpec14Corpus(t *testing.T) {
	h := &countingWriter{h: sha256.New()}
	require.NoError(t, engine.WriteSpec14Corpus(h))
	require.Equal(t, int64(5_000_096), h.n)
	require.Equal(t, engine.Spec14SHA256, hex.EncodeToString(h.h.Sum(nil)))
}

type countingWriter struct {
	h interface {
		Write([]byte) (int, error)
		Sum([]byte) []byte
	}
	n int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return w.h.Write(p)
}

// Without GNU time, runRSS measures through the helper: the command's
// output, exit code and a peak RSS of its own.
func TestRunRSSHelper(t *testing.T) {
	saved := timeBin
	timeBin = ""
	defer func() { timeBin = saved }()
	p, err := runRSS(t.TempDir(), "sh", "-c", "echo out; exit 3")
	require.NoError(t, err)
	require.Equal(t, 3, p.code)
	require.Equal(t, "out\n", string(p.out))
	require.Positive(t, p.maxRSS)
	require.Less(t, p.maxRSS, int64(64<<10), "KiB: the shell's peak, not a grown parent's")
}

// runProc's CPU time is the child's work, counted also when the child
// runs it in a grandchild (as /usr/bin/time does for the first ingest
// round), and is not the wall time of a child that sleeps.
func TestRunProcCPU(t *testing.T) {
	busy := "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"child", []string{"sh", "-c", busy}},
		{"grandchild", []string{"sh", "-c", "sh -c '" + busy + "'; true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := runProc(t.TempDir(), tc.args[0], tc.args[1:]...)
			require.NoError(t, err)
			require.Zero(t, p.code)
			require.Greater(t, p.cpu, 50*time.Millisecond, "wall %v", p.wall)
		})
	}
	p, err := runProc(t.TempDir(), "sleep", "0.3")
	require.NoError(t, err)
	require.Less(t, p.cpu, 100*time.Millisecond, "a sleeping child uses no CPU (wall %v)", p.wall)
}

// snapshot copies archives and links the other files, so that a command
// run in the copy changes neither.
func TestSnapshot(t *testing.T) {
	src := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.db"), []byte("archive"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(src, "sub", "doc.txt"), []byte("doc"), 0o644))
	dst := src + ".before"
	require.NoError(t, snapshot(src, dst))
	require.NoError(t, os.WriteFile(filepath.Join(dst, "a.db"), []byte("changed"), 0o600))
	b, err := os.ReadFile(filepath.Join(src, "a.db"))
	require.NoError(t, err)
	require.Equal(t, "archive", string(b), "the archive is a copy")
	s1, err := os.Stat(filepath.Join(src, "sub", "doc.txt"))
	require.NoError(t, err)
	s2, err := os.Stat(filepath.Join(dst, "sub", "doc.txt"))
	require.NoError(t, err)
	require.True(t, os.SameFile(s1, s2), "other files are links")
	require.NoError(t, snapshot(src, dst), "over an earlier snapshot")
}
