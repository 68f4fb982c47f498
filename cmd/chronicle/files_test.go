//go:build unix

// FIFOs and umask modes are Unix facilities.

package main

// Only regular files (issue 12, points 7, 8 and 10): FIFOs, sockets and
// devices fail at once with a line naming the path and what it is, a
// directory walk gives every entry an outcome line, export writes both
// files or neither, entity checks its argument, and the files that hold
// evidence are private.

import (
	"encoding/json"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a FIFO under the workspace and returns its path.
func (w *ws) mkfifo(name string) string {
	w.t.Helper()
	path := filepath.Join(w.dir, name)
	require.NoError(w.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(w.t, syscall.Mkfifo(path, 0o644))
	return path
}

// requireFIFO checks that path is still a FIFO (nothing replaced it).
func requireFIFO(t *testing.T, path string) {
	t.Helper()
	st, err := os.Lstat(path)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&fs.ModeNamedPipe, "%s is still a FIFO", path)
}

// TestFilesFIFO: every command handed a FIFO, to read or to write, returns
// at once with the documented line and exit code, and leaves the archive
// byte for byte as it was (a blocked open would hit the 30 s timeout of
// runBin and fail the test).
func TestFilesFIFO(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	const doc = "testdata/samples/alice-bob-en.txt"
	w.write("new.txt", "Carol owns Pen.\n")
	fifo := w.mkfifo("p.fifo")
	w.mkfifo("s.chronicle")
	w.mkfifo("out/alice-bob-en.txt.chronicle")
	w.mkfifo("out2/alice-bob-en.txt.chronicle.receipt")
	before := w.archiveBytes()

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact
		stderr string // exact
	}{
		{"ingest FIFO", []string{"ingest", "p.fifo"}, 1,
			"rejected  p.fifo: a FIFO, not a regular file\n", "chronicle ingest: 1 of 1 files rejected\n"},
		{"ingest --receipt FIFO", []string{"ingest", "new.txt", "--receipt", "p.fifo"}, 1,
			"", "chronicle ingest: --receipt p.fifo is a FIFO, not a regular file; nothing was done\n"},
		{"query --receipt FIFO", []string{"query", doc, "Did Alice repay Bob?", "--receipt", "p.fifo"}, 1,
			"", "chronicle query: --receipt p.fifo is a FIFO, not a regular file; nothing was done\n"},
		{"entity --receipt FIFO", []string{"entity", "Saud", "--receipt", "p.fifo"}, 1,
			"", "chronicle entity: --receipt p.fifo is a FIFO, not a regular file; nothing was done\n"},
		{"verify FIFO", []string{"verify", "p.fifo"}, 1,
			"INVALID\n", "chronicle verify: p.fifo is a FIFO, not a regular file\n"},
		{"export onto a FIFO store", []string{"export", doc, "out"}, 1,
			"", "chronicle export: out/alice-bob-en.txt.chronicle is a FIFO, not a regular file; nothing was written\n"},
		{"export onto a FIFO receipt", []string{"export", doc, "out2"}, 1,
			"", "chronicle export: out2/alice-bob-en.txt.chronicle.receipt is a FIFO, not a regular file; nothing was written\n"},
		{"export into a FIFO", []string{"export", doc, "p.fifo"}, 1,
			"", "chronicle export: p.fifo is a FIFO, not a directory; nothing was written\n"},
		{"claims check FIFO", []string{"claims", "check", "p.fifo"}, 1,
			"", "chronicle claims: p.fifo is a FIFO, not a regular file\n"},
		{"claims check --out FIFO", []string{"claims", "check", "testdata/claims/agent-answer.jsonl", "--out", "p.fifo"}, 1,
			"", "chronicle claims: --out p.fifo is a FIFO, not a regular file; nothing was done\n"},
		{"claims read FIFO", []string{"claims", "read", "p.fifo"}, 1,
			"", "chronicle claims: p.fifo is a FIFO, not a regular file\n"},
		{"claims verify FIFO", []string{"claims", "verify", "p.fifo"}, 1,
			"", "chronicle claims: p.fifo is a FIFO, not a regular file\n"},
		{"import FIFO", []string{"import", "s.chronicle"}, 1,
			"rejected  s.chronicle is a FIFO, not a regular file\n", "chronicle import: 1 of 1 stores rejected\n"},
		{"ingest a character device", []string{"ingest", "/dev/null"}, 1,
			"rejected  /dev/null: a character device, not a regular file\n", "chronicle ingest: 1 of 1 files rejected\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := w.run(tc.args...)
			require.Less(t, r.elapsed, 5*time.Second, "returns at once")
			require.Equal(t, tc.code, r.code, "%s", r)
			require.Equal(t, tc.stdout, r.stdout)
			require.Equal(t, tc.stderr, r.stderr)
			require.Equal(t, before, w.archiveBytes(), "the archive is unchanged")
			requireFIFO(t, fifo)
		})
	}
	_, err := os.Stat(filepath.Join(w.dir, "out2", "alice-bob-en.txt.chronicle"))
	require.ErrorIs(t, err, os.ErrNotExist, "no store without its receipt")
	require.Len(t, w.docs(), 2, "new.txt was not ingested")

	// A FIFO as the archive: one line naming it, at once.
	r := w.raw(nil, "--db", fifo, "docs")
	require.Less(t, r.elapsed, 5*time.Second)
	requireOneLineError(t, r, 1, "docs", `^chronicle docs: archive \S+p\.fifo is a FIFO, not a regular file\n$`)
}

// TestFilesWalk: a walk prints one line per entry in lexical order; FIFOs,
// sockets, symbolic links (dangling or not) and hidden entries are skipped
// with the reason and are not failures; the regular files still land. A
// symbolic link named on the command line is followed; a FIFO named there
// is a failure (exit 1) that does not stop the other files.
func TestFilesWalk(t *testing.T) {
	t.Parallel()
	w := newWS(t)
	w.write("d/a.txt", "Alice owns Book.\n")
	w.write("d/c.txt", "Carol owns Pen.\n")
	w.write("d/sub/e.txt", "Eve owns Cup.\n")
	w.write("d/.hidden/x.txt", "Hidden owns Nothing.\n")
	w.mkfifo("d/b.fifo")
	require.NoError(t, os.Symlink("nowhere", filepath.Join(w.dir, "d", "dangling")))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(w.dir, "d", "link.txt")))
	// A socket: its path must stay short (108 bytes), so it is bound in a
	// short temporary directory and moved into the walk.
	short, err := os.MkdirTemp("", "s")
	require.NoError(t, err)
	defer os.RemoveAll(short)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(short, "s"), Net: "unix"})
	require.NoError(t, err)
	l.SetUnlinkOnClose(false)
	defer l.Close()
	require.NoError(t, os.Rename(filepath.Join(short, "s"), filepath.Join(w.dir, "d", "sock")))

	r := w.run("ingest", "d")
	require.Less(t, r.elapsed, 5*time.Second)
	require.Equal(t, 0, r.code, "skipped entries are not failures: %s", r)
	require.Empty(t, r.stderr)
	out := lines(r.stdout)
	want := []string{
		`^skipped   d/\.hidden  hidden \(its name starts with a dot\)$`,
		`^new       d/a\.txt  [0-9a-f]{12}  1 event$`,
		`^skipped   d/b\.fifo  a FIFO, not a regular file$`,
		`^new       d/c\.txt  [0-9a-f]{12}  1 event$`,
		`^skipped   d/dangling  a symbolic link \(not followed in a directory walk\)$`,
		`^skipped   d/link\.txt  a symbolic link \(not followed in a directory walk\)$`,
		`^skipped   d/sock  a socket, not a regular file$`,
		`^new       d/sub/e\.txt  [0-9a-f]{12}  1 event$`,
	}
	require.Len(t, out, len(want), r.stdout)
	for i, p := range want {
		require.Regexp(t, p, out[i])
	}
	docs := w.docs()
	require.Len(t, docs, 3)

	// The JSON view carries the reason.
	r = w.run("ingest", "d", "--json")
	require.Equal(t, 0, r.code, "%s", r)
	var skipped []map[string]any
	for _, line := range lines(r.stdout) {
		var j map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &j), line)
		if j["outcome"] == "skipped" {
			skipped = append(skipped, j)
		}
	}
	require.Len(t, skipped, 5)
	require.Equal(t, map[string]any{"path": "d/b.fifo", "outcome": "skipped", "reason": "a FIFO, not a regular file"}, skipped[1])

	// Named on the command line: a symbolic link is followed, a FIFO is
	// rejected, and the other files land.
	w.write("f.txt", "Frank owns Hat.\n")
	r = w.run("ingest", "d/link.txt", "d/b.fifo", "f.txt")
	require.Less(t, r.elapsed, 5*time.Second)
	require.Equal(t, 1, r.code, "%s", r)
	out = lines(r.stdout)
	require.Len(t, out, 3, r.stdout)
	require.Regexp(t, `^reused    d/link\.txt  [0-9a-f]{12}  first imported`, out[0])
	require.Equal(t, "rejected  d/b.fifo: a FIFO, not a regular file", out[1])
	require.Regexp(t, `^new       f\.txt  `, out[2])
	require.Equal(t, "chronicle ingest: 1 of 3 files rejected\n", r.stderr)
	require.Len(t, w.docs(), 4)
	require.Contains(t, w.docs()[0].Names, "d/link.txt")
}

// TestFilesExportBothOrNeither: an export whose receipt cannot be written
// leaves no store file behind; once the way is clear both files are
// written.
func TestFilesExportBothOrNeither(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	const doc = "testdata/samples/alice-bob-en.txt"
	store := filepath.Join(w.dir, "out", "alice-bob-en.txt.chronicle")

	// A directory at the receipt path: refused before anything is written.
	require.NoError(t, os.MkdirAll(store+".receipt", 0o755))
	requireOneLineError(t, w.run("export", doc, "out"), 1, "export",
		`out/alice-bob-en\.txt\.chronicle\.receipt is a directory, not a regular file; nothing was written`)
	_, err := os.Lstat(store)
	require.ErrorIs(t, err, os.ErrNotExist, "no store file without its receipt")

	// A different receipt there: found only when writing it; the store
	// just written is removed again and the receipt is left untouched.
	require.NoError(t, os.Remove(store+".receipt"))
	require.NoError(t, os.WriteFile(store+".receipt", []byte("someone else's receipt\n"), 0o644))
	requireOneLineError(t, w.run("export", doc, "out"), 1, "export",
		`a different receipt already exists at this path`, `the store out/alice-bob-en\.txt\.chronicle was not kept either`)
	_, err = os.Lstat(store)
	require.ErrorIs(t, err, os.ErrNotExist, "no store file without its receipt")
	require.Equal(t, "someone else's receipt\n", string(w.read("out/alice-bob-en.txt.chronicle.receipt")))

	require.NoError(t, os.Remove(store+".receipt"))
	require.Equal(t, "store=out/alice-bob-en.txt.chronicle\nreceipt=out/alice-bob-en.txt.chronicle.receipt\nsignature=out/alice-bob-en.txt.chronicle.receipt.sig\n", w.ok("export", doc, "out"))
	require.FileExists(t, store)
	require.FileExists(t, store+".receipt")
	// Exporting again writes the same bytes: a success that keeps both.
	w.ok("export", doc, "out")
	require.FileExists(t, store)

	// A different signature beside the receipt: refused before the store
	// or the receipt is written, and left untouched.
	for _, p := range []string{store, store + ".receipt", store + ".receipt.sig"} {
		require.NoError(t, os.Remove(p))
	}
	require.NoError(t, os.WriteFile(store+".receipt.sig", []byte("another key's\n"), 0o644))
	requireOneLineError(t, w.run("export", doc, "out"), 1, "export", `alice-bob-en\.txt\.chronicle\.receipt\.sig: a different receipt already exists`)
	require.NoFileExists(t, store)
	require.NoFileExists(t, store+".receipt")
	require.Equal(t, "another key's\n", string(w.read("out/alice-bob-en.txt.chronicle.receipt.sig")))
}

// TestFilesEntityArgument: entity checks NAME as claim fields are checked
// (valid UTF-8, 1 to 127 bytes, no TAB): a usage error, exit 2.
func TestFilesEntityArgument(t *testing.T) {
	t.Parallel()
	w := samplesWS(t)
	for name, arg := range map[string]string{
		"invalid UTF-8": "Sa\xffud",
		"TAB":           "Saud\tBob",
		"128 bytes":     strings.Repeat("x", 128),
		"empty":         "",
	} {
		t.Run(name, func(t *testing.T) {
			for _, extra := range [][]string{nil, {"--receipt", "e.receipt"}} {
				r := w.run(append([]string{"entity", arg}, extra...)...)
				requireOneLineError(t, r, 2, "entity", `^chronicle entity: NAME must be`)
			}
			require.NoFileExists(t, filepath.Join(w.dir, "e.receipt"))
		})
	}
	r := w.run("entity", strings.Repeat("x", 127), "--text")
	require.Equal(t, 0, r.code, "%s", r)
	require.Contains(t, r.stdout, "no event names")
	require.Contains(t, w.ok("entity", "Saud", "--text"), "INTERMEDIARY_FOR")
}

// TestFilesModes: files that hold evidence (--receipt FILE, claims rows)
// are 0600 whatever the umask; exported files follow the umask (0644
// under 022), as the original tool's do. Not parallel: it sets the
// process umask, which the binaries inherit.
func TestFilesModes(t *testing.T) {
	w := samplesWS(t)
	const doc = "testdata/samples/alice-bob-en.txt"
	mode := func(name string) fs.FileMode {
		t.Helper()
		st, err := os.Stat(filepath.Join(w.dir, name))
		require.NoError(t, err)
		return st.Mode().Perm()
	}
	orig := syscall.Umask(0o022)
	t.Cleanup(func() { syscall.Umask(orig) })
	for _, umask := range []int{0o022, 0o000} {
		syscall.Umask(umask)
		dir := map[int]string{0o022: "u022", 0o000: "u000"}[umask]
		w.write(dir+"/new.txt", "Carol owns Pen.\n")
		w.ok("ingest", dir+"/new.txt", "--receipt", dir+"/ingest.receipt")
		w.ok("query", doc, "Did Alice repay Bob?", "--receipt", dir+"/query.receipt")
		w.ok("entity", "Saud", "--receipt", dir+"/entity.receipt")
		w.ok("claims", "check", "testdata/claims/agent-answer.jsonl", "--out", dir+"/rows.jsonl")
		w.ok("export", doc, dir+"/export")
		for _, f := range []string{"ingest.receipt", "query.receipt", "entity.receipt", "rows.jsonl"} {
			require.Equal(t, fs.FileMode(0o600), mode(dir+"/"+f), "%s under umask %03o", f, umask)
		}
		for _, f := range []string{"alice-bob-en.txt.chronicle", "alice-bob-en.txt.chronicle.receipt"} {
			require.Equal(t, fs.FileMode(0o644)&^fs.FileMode(umask), mode(dir+"/export/"+f), "%s under umask %03o", f, umask)
		}
	}
	// casper-chronicle writes the original tool's files: they follow the
	// umask too.
	syscall.Umask(0o022)
	w.write("c/story.txt", "Alice owns Book.\n")
	r := w.casper("ingest", "c/story.txt")
	require.Equal(t, 0, r.code, "%s", r)
	require.Equal(t, fs.FileMode(0o644), mode("c/story.txt.chronicle"))
	require.Equal(t, fs.FileMode(0o644), mode("c/story.txt.chronicle.receipt"))
}
