package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/casper-chronicle/chronicle/internal/testbin"
	"github.com/stretchr/testify/require"
)

// The archive's log from the command line (issue 29, items 1-3): the
// two-person story of the README, and what refuses a proof or a
// checkpoint. The tests sign with the test key ($CHRONICLE_KEY).

// TestLogTwoPersonStory: one person saves a checkpoint; later, after more
// writes, the archive proves it extends it; a proof of a document checks
// offline with the public key alone (--trust), and fails with another
// key; another archive does not extend the checkpoint.
func TestLogTwoPersonStory(t *testing.T) {
	t.Parallel()
	w := g1WS(t)
	k := w.key(nil)

	cp := w.ok("log")
	require.True(t, strings.HasPrefix(cp, "chronicle.archive/"), cp)
	require.Contains(t, cp, "\n\n\u2014 "+k.Identity+" ")
	w.ok("log", "--out", "monday.checkpoint")
	require.Equal(t, cp, string(w.read("monday.checkpoint")))
	var j struct {
		Checkpoint, Origin, Root string
		Size                     int64
	}
	require.NoError(t, json.Unmarshal([]byte(w.ok("log", "--json")), &j))
	require.Equal(t, cp, j.Checkpoint)
	require.EqualValues(t, 2, j.Size, "the document and its ingest receipt")

	r := w.run("log", "verify")
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, "usage: log verify CHECKPOINT")
	r = w.run("log", "verfy", "monday.checkpoint")
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, `did you mean "verify"?`)

	w.write("later.txt", "A later document.\n")
	w.ok("ingest", "later.txt")
	out := w.ok("log", "verify", "monday.checkpoint")
	require.Equal(t, "VALID\nthe log today (4 leaves) extends the checkpoint of 2 leaves signed by "+k.Identity+": nothing removed, nothing rewritten\n", out)

	out = w.ok("prove", "input.txt", "--out", "input.proof")
	require.Contains(t, out, "document leaf 0 of the log's 4 proven in input.proof")
	// Offline: no archive, no private key, the public key given.
	none := []string{"CHRONICLE_KEY=", "XDG_CONFIG_HOME=" + t.TempDir(), "CHRONICLE_DB=" + filepath.Join(t.TempDir(), "absent.db")}
	r = w.raw(none, "verify", "input.proof", "--trust", k.NoteVerifierKey)
	require.Equal(t, 0, r.code, "%s", r)
	require.Contains(t, r.stdout, "VALID\n{\"kind\":\"document\"")
	r = w.raw(none, "verify", "input.proof")
	require.Equal(t, 2, r.code, "%s", r)
	require.Contains(t, r.stderr, "--trust")
	// Another key's verifier refuses it.
	otherEnv := []string{"CHRONICLE_KEY=", "XDG_CONFIG_HOME=" + t.TempDir()}
	otherKey := w.key(otherEnv)
	// check holds the archive's checkpoint to the key it is run with.
	r = w.raw(otherEnv, "--db", w.db, "check")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout+r.stderr, "not signed by "+otherKey.Identity)
	w.ok("check")
	other := w.write("other.vkey", otherKey.NoteVerifierKey+"\n")
	r = w.raw(none, "verify", "input.proof", "--trust", other)
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stdout, "INVALID")
	// A changed byte of the proof is INVALID.
	proof := string(w.read("input.proof"))
	require.Contains(t, proof, `\"size\":383`)
	w.write("bad.proof", strings.Replace(proof, `\"size\":383`, `\"size\":384`, 1))
	r = w.raw(none, "verify", "bad.proof", "--trust", k.NoteVerifierKey)
	require.Equal(t, 1, r.code, "%s", r)

	// Another archive (another log) does not extend the checkpoint.
	r = w.raw([]string{"CHRONICLE_DB="}, "--db", filepath.Join(w.dir, "other.db"), "ingest", "later.txt")
	require.Equal(t, 0, r.code, "%s", r)
	r = w.raw(nil, "--db", filepath.Join(w.dir, "other.db"), "log", "verify", "monday.checkpoint")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "the checkpoint is of log")
	require.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line")

	// A kept receipt's file is proven too.
	w.ok("query", "input.txt", g1Q, "--keep", "--receipt", "q.receipt")
	out = w.ok("prove", "q.receipt")
	require.Contains(t, out, `"leaf":"{\"kind\":\"receipt\",\"number\":`)
	// And a kept claims check, by its claims file.
	w.write("claims.jsonl", `{"chronicle-claims":1,"namespace":"log","runId":"r1"}
{"result":1,"document":"input.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"PARTIAL"}
`)
	w.ok("claims", "check", "claims.jsonl")
	w.ok("prove", "claims.jsonl", "--out", "claims.proof")
	r = w.raw(none, "verify", "claims.proof", "--trust", k.NoteVerifierKey)
	require.Equal(t, 0, r.code, "%s", r)
	require.Contains(t, r.stdout, `{"kind":"claims","namespace":"log","run_id":"r1"`)
	// A file nothing kept has, and no such document.
	w.write("stray.txt", "never ingested, never kept\n")
	r = w.run("prove", "stray.txt")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "no kept receipt or claims check has these bytes")
	r = w.run("prove", "later.txt.missing")
	require.NotEqual(t, 0, r.code)
}

// TestLogKeyOnFirstWrite: the first write creates the key (its one-line
// notice) and signs the log; an archive upgraded by a read, without the
// key, has a log no checkpoint covers, which `log` says and `log --sign`
// signs.
func TestLogKeyOnFirstWrite(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.copyGolden(g1, "input.txt", "input.txt")
	config := t.TempDir()
	fresh := []string{"CHRONICLE_KEY=", "XDG_CONFIG_HOME=" + config}
	keyFile := filepath.Join(config, "chronicle", "signing_key")
	// A key others may read fails the first write before the archive
	// file exists.
	exposed := filepath.Join(t.TempDir(), "exposed")
	data, err := os.ReadFile(filepath.Join(testbin.RepoRoot(), testbin.TestKeyFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(exposed, data, 0o644))
	if runtime.GOOS != "windows" {
		r := w.raw([]string{"CHRONICLE_KEY=" + exposed}, "--db", w.db, "ingest", "input.txt")
		require.NotEqual(t, 0, r.code, "%s", r)
		require.Contains(t, r.stderr, "readable by others")
		require.NoFileExists(t, w.db)
	}
	r := w.raw(fresh, "--db", w.db, "docs")
	require.NotEqual(t, 0, r.code, "no archive yet")
	require.NoFileExists(t, keyFile, "reading never creates the key")
	r = w.raw(fresh, "--db", w.db, "ingest", "input.txt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, "chronicle: created signing key "+keyFile+" (`chronicle key` prints its public key)\n", r.stderr)
	r = w.raw(fresh, "--db", w.db, "log")
	require.Equal(t, 0, r.code, "%s", r)
	require.True(t, strings.HasPrefix(r.stdout, "chronicle.archive/"))

	// A schema-16 archive upgraded by a read: its log is built, unsigned.
	old := filepath.Join(w.dir, "old.db")
	data, err = os.ReadFile(filepath.Join(testbin.RepoRoot(), "testdata", "archives", "schema16.db"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(old, data, 0o600))
	r = w.raw(fresh, "--db", old, "docs")
	require.Equal(t, 0, r.code, "%s", r)
	r = w.raw(fresh, "--db", old, "log")
	require.Equal(t, 1, r.code, "%s", r)
	require.Contains(t, r.stderr, "log --sign")
	r = w.raw(fresh, "--db", old, "log", "--sign")
	require.Equal(t, 0, r.code, "%s", r)
	require.Empty(t, r.stderr, "the key exists")
	r = w.raw(fresh, "--db", old, "check")
	require.Equal(t, 0, r.code, "%s", r)
}
