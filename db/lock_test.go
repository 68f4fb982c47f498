package db_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/testbin"

	"github.com/stretchr/testify/require"
)

// Environment of the helper process that holds an archive open.
const (
	helperEnvPath     = "CHRONICLE_DB_TEST_HOLD"
	helperEnvReadOnly = "CHRONICLE_DB_TEST_HOLD_READONLY"
)

// TestHelperProcess is not a test: run by holdArchive in a child process
// (this test binary re-executed), it opens the archive, says "ready" and
// keeps it open until its stdin is closed.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnvPath)
	if path == "" {
		t.Skip("helper process for the lock tests")
	}
	a, err := db.Open(path, db.Options{ReadOnly: os.Getenv(helperEnvReadOnly) == "1"})
	if err != nil {
		fmt.Printf("error: %v\n", err)
		os.Exit(2)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = a.Close()
	os.Exit(0)
}

// holdArchive starts a child process that holds the archive open; the
// returned function makes it close the archive and exit.
func holdArchive(t *testing.T, path string, readOnly bool) (release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnvPath+"="+path)
	if readOnly {
		cmd.Env = append(cmd.Env, helperEnvReadOnly+"=1")
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	done := false
	release = func() {
		if done {
			return
		}
		done = true
		stdin.Close()
		require.NoError(t, testbin.WaitWithin(cmd, 10*time.Second), "helper process")
	}
	t.Cleanup(release)

	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line := <-ready:
		require.Equal(t, "ready\n", line, "helper process")
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("helper process never became ready")
	}
	return release
}

func TestSecondWriterGetsErrLocked(t *testing.T) {
	g := loadGolden(t)[0]
	path := newPath(t)
	a := openArchive(t, path)
	_, err := a.Ingest(g.Input, goldenTime, g.DocName())
	require.NoError(t, err)
	require.NoError(t, a.Close())

	release := holdArchive(t, path, false)
	for _, ro := range []bool{false, true} {
		start := time.Now()
		b, err := db.Open(path, db.Options{ReadOnly: ro, Timeout: time.Second})
		elapsed := time.Since(start)
		if b != nil {
			b.Close()
		}
		require.ErrorIs(t, err, db.ErrLocked, "read-only=%v", ro)
		require.Nil(t, b)
		require.Less(t, elapsed, 2*time.Second, "ErrLocked must come after the timeout, not hang")
		require.Contains(t, err.Error(), path)
		require.Contains(t, err.Error(), "in use")
	}

	// A shorter timeout is honoured.
	start := time.Now()
	_, err = db.Open(path, db.Options{Timeout: 100 * time.Millisecond})
	require.ErrorIs(t, err, db.ErrLocked)
	require.Less(t, time.Since(start), time.Second)

	// Once the other process lets go, the archive opens and is intact.
	release()
	a = openArchive(t, path)
	d, err := a.Resolve(g.DocName())
	require.NoError(t, err)
	storeBytes, _, err := a.Rebuild(d)
	require.NoError(t, err)
	require.Equal(t, g.Store, storeBytes)
}

// Readers share the archive; a writer waits for them and gives up with
// ErrLocked.
func TestReadersShareWritersWait(t *testing.T) {
	g := loadGolden(t)[0]
	path := newPath(t)
	a := openArchive(t, path)
	_, err := a.Ingest(g.Input, goldenTime, g.DocName())
	require.NoError(t, err)
	require.NoError(t, a.Close())

	holdArchive(t, path, true)
	r := openArchive(t, path, db.Options{ReadOnly: true})
	docs, err := r.Docs()
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.NoError(t, r.Close())

	start := time.Now()
	_, err = db.Open(path, db.Options{Timeout: time.Second})
	require.ErrorIs(t, err, db.ErrLocked)
	require.Less(t, time.Since(start), 2*time.Second)
	require.True(t, strings.Contains(err.Error(), path))

	// Without a timeout the writer waits db.LockTimeout for the readers.
	start = time.Now()
	_, err = db.Open(path, db.Options{})
	require.ErrorIs(t, err, db.ErrLocked)
	require.GreaterOrEqual(t, time.Since(start), db.LockTimeout-100*time.Millisecond)
}
