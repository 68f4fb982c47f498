package chronicle_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/casper-chronicle/chronicle"
	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/internal/pagedamage"
	"github.com/casper-chronicle/chronicle/internal/testbin"
)

func openTemp(t *testing.T) (*chronicle.Archive, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.db")
	a, err := chronicle.Open(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	return a, path
}

// TestAnswersAreTheOriginalToolsBytes: every query, claim and find of the
// golden transcripts gives, through the API, exactly the stdout the
// original casper-chronicle printed.
func TestAnswersAreTheOriginalToolsBytes(t *testing.T) {
	cases, err := filepath.Glob("testdata/golden/*/transcript.json")
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	compared := 0
	for _, tf := range cases {
		dir := filepath.Dir(tf)
		if strings.HasSuffix(dir, "g9_legacy_v1_store") {
			continue // a V1 store the original wrote: `chronicle import`, not Ingest
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			raw, err := os.ReadFile(tf)
			require.NoError(t, err)
			var tr struct {
				Commands []struct {
					Argv   []string
					Exit   int
					Stdout string
				}
			}
			require.NoError(t, json.Unmarshal(raw, &tr))
			a, _ := openTemp(t)
			for _, c := range tr.Commands {
				if c.Exit != 0 {
					continue
				}
				var ans *chronicle.Answer
				switch c.Argv[0] {
				case "ingest":
					src, err := os.ReadFile(filepath.Join(dir, c.Argv[1]))
					require.NoError(t, err)
					_, err = a.Ingest(c.Argv[1], src)
					require.NoError(t, err)
					continue
				case "query":
					ans, err = a.Query(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2])
				case "find":
					ans, err = a.FindIn(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2])
				case "claim":
					ans, err = a.Claim(strings.TrimSuffix(c.Argv[1], ".chronicle"), c.Argv[2], c.Argv[3], c.Argv[4])
				default:
					continue
				}
				require.NoError(t, err, c.Argv)
				// The original prints the result line, then receipt=FILE.
				result, _, ok := strings.Cut(c.Stdout, "\n")
				require.True(t, ok)
				require.Equal(t, result, string(ans.JSON), c.Argv)
				verdict, err := a.Verify(ans.Receipt)
				require.NoError(t, err)
				require.Equal(t, chronicle.Valid, verdict)
				compared++
			}
		})
	}
	require.Greater(t, compared, 20)
}

func TestErrors(t *testing.T) {
	a, path := openTemp(t)
	_, err := a.Ingest("s.txt", []byte("@chronicle\tA\tPAID_TO\tB\t1\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"))
	require.NoError(t, err)

	_, err = a.Query("nope.txt", "Did A repay B?")
	require.ErrorIs(t, err, chronicle.ErrUnknownDocument)
	_, err = a.Query("s.txt", "bad \xff")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Claim("s.txt", "A", "has\ttab", "B")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Entity("")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Settle("@claim\tA\tp\tB")
	require.ErrorIs(t, err, chronicle.ErrBadQuestion)
	_, err = a.Ingest("", []byte("x\n"))
	require.Error(t, err)

	// A refused source changes nothing.
	before, err := a.Documents()
	require.NoError(t, err)
	_, err = a.Ingest("bad.txt", []byte("ok\n\xff\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "bad.txt")
	after, err := a.Documents()
	require.NoError(t, err)
	require.Equal(t, before, after)

	// A damaged receipt is INVALID with its reason.
	ans, err := a.FindIn("s.txt", "PAID_TO")
	require.NoError(t, err)
	bad := []byte(strings.Replace(string(ans.Receipt), "question_hex:", "question_hex:00", 1))
	verdict, err := a.Verify(bad)
	require.Equal(t, chronicle.Invalid, verdict)
	require.Error(t, err)

	// A reader opens beside the idle writer (TestLockOnlyForTheCall: the
	// writer holds no lock between its calls).
	r, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true, LockTimeout: 50 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	docs, err := r.Documents()
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Equal(t, []string{"s.txt"}, docs[0].Names)
	require.Len(t, docs[0].SHA256, 64)
	_, err = r.Ingest("t.txt", []byte("x\n"))
	require.Error(t, err, "a read-only archive takes no ingest")
	require.NoError(t, r.Close())

	_, err = chronicle.Open(filepath.Join(t.TempDir(), "missing.db"), &chronicle.Options{ReadOnly: true})
	require.ErrorIs(t, err, chronicle.ErrNoArchive)
}

// TestReceiptsSurviveLaterIngests: a set receipt binds documents #1..#S
// and stays VALID when more documents arrive.
func TestReceiptsSurviveLaterIngests(t *testing.T) {
	a, _ := openTemp(t)
	_, err := a.Ingest("one.txt", []byte("Saud was here.\n"))
	require.NoError(t, err)
	found, err := a.Find("Saud", 0)
	require.NoError(t, err)
	require.Len(t, found.Documents, 1)
	again, err := a.Ingest("again.txt", []byte("Saud was here.\n"))
	require.NoError(t, err)
	require.True(t, again.Reused)
	_, err = a.Ingest("two.txt", []byte("Saud again.\n"))
	require.NoError(t, err)
	verdict, err := a.Verify(found.Receipt)
	require.NoError(t, err)
	require.Equal(t, chronicle.Valid, verdict)
	now, err := a.Find("Saud", 0)
	require.NoError(t, err)
	require.Len(t, now.Documents, 2)
}

// TestIngestFile: a file ingested by path is found by its other spellings;
// a directory, a missing file and one over 8 MiB are refused, changing
// nothing.
func TestIngestFile(t *testing.T) {
	a, _ := openTemp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "loan.txt")
	require.NoError(t, os.WriteFile(path, []byte("@chronicle\tA\tBORROWED_FROM\tB\t10\tSAR\tT1\tASSERTED\tPOSITIVE\tCONFIRMED\n"), 0o600))
	got, err := a.IngestFile(path)
	require.NoError(t, err)
	require.Equal(t, []string{path}, got.Document.Names)
	require.Equal(t, 1, got.Document.Events)
	for _, name := range []string{path, filepath.Join(dir, ".", "loan.txt"), filepath.Join(dir, "..", filepath.Base(dir), "loan.txt")} {
		ans, err := a.Query(name, "Did A repay B?")
		require.NoError(t, err, name)
		require.Equal(t, got.Document.SHA256, ans.Document.SHA256)
	}

	big := filepath.Join(dir, "big.txt")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte("x\n"), 4<<20+1), 0o600))
	for _, bad := range []string{dir, filepath.Join(dir, "missing.txt"), big} {
		_, err := a.IngestFile(bad)
		require.Error(t, err, bad)
	}
	docs, err := a.Documents()
	require.NoError(t, err)
	require.Len(t, docs, 1)
}

// writerEnv names the archive the helper process keeps open for writing
// (TestMain, runWriter).
const writerEnv = "CHRONICLE_TEST_WRITER"

// TestMain runs the tests, or, re-executed by startWriter with writerEnv
// set, the helper process that keeps an archive open for writing.
func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		os.Exit(runWriter(path))
	}
	os.Exit(m.Run())
}

// claimsFile is a claims file about alice-bob-en.txt under runId run.
func claimsFile(run string) []byte {
	return []byte(`{"chronicle-claims":1,"namespace":"lock","runId":"` + run + `"}
{"result":1,"document":"alice-bob-en.txt","query":"Did Alice repay Bob?"}
{"claim":1,"standing":"fact","iteration":0,"declaredOn":"answer","declaredResult":1,"declaredRule":"chronicle.settlement.status","declaredValue":"SUPPORTED"}
`)
}

// runWriter is the helper process: it opens the archive at path for
// writing with the Go API, ingests the sample alice-bob-en.txt, says
// "ready" and keeps the archive open, idle between the commands it reads
// on stdin, one a line, each answered with one line ("ok …" or
// "error: …"):
//
//	find TERMS       Find
//	ingest NAME TEXT Ingest of TEXT and a newline
//	check RUN        CheckClaims of claimsFile(RUN)
//	hold RUN         the same, stopped in its write (exclusive lock taken):
//	                 it says "writing" and goes on at a line "go"
func runWriter(path string) int {
	out := bufio.NewWriter(os.Stdout)
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	a, err := chronicle.Open(path, nil)
	if err == nil {
		var src []byte
		if src, err = os.ReadFile("testdata/samples/alice-bob-en.txt"); err == nil {
			_, err = a.Ingest("alice-bob-en.txt", src)
		}
	}
	if err != nil {
		say("error: %v", err)
		return 2
	}
	defer a.Close()
	in := bufio.NewScanner(os.Stdin)
	hold := false
	chronicle.SetWritingForTest(a, func() {
		if !hold {
			return
		}
		say("writing")
		if !in.Scan() || in.Text() != "go" {
			say("error: expected go, got %q", in.Text())
		}
	})
	say("ready")
	for in.Scan() {
		verb, arg, _ := strings.Cut(in.Text(), " ")
		switch verb {
		case "find":
			ans, err := a.Find(arg, 0)
			if err != nil {
				say("error: %v", err)
				continue
			}
			say("ok %d", len(ans.Documents))
		case "ingest":
			name, text, _ := strings.Cut(arg, " ")
			if _, err := a.Ingest(name, []byte(text+"\n")); err != nil {
				say("error: %v", err)
				continue
			}
			say("ok")
		case "check", "hold":
			hold = verb == "hold"
			rep, err := a.CheckClaims(claimsFile(arg))
			if err != nil {
				say("error: %v", err)
				continue
			}
			say("ok %d", len(rep.Rows))
		default:
			say("error: unknown command %q", verb)
		}
	}
	return 0
}

// writer is the helper process (runWriter), driven line by line.
type writer struct {
	t     *testing.T
	stdin io.WriteCloser
	lines chan string
}

// startWriter starts the helper process on the archive at path and waits
// for it to be ready; it is stopped when the test ends.
func startWriter(t *testing.T, path string) *writer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	w := &writer{t: t, stdin: stdin, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
		close(w.lines)
	}()
	t.Cleanup(func() {
		stdin.Close()
		require.NoError(t, testbin.WaitWithin(cmd, 10*time.Second), "helper process")
	})
	require.Equal(t, "ready", w.next())
	return w
}

// next is the helper's next line.
func (w *writer) next() string {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		require.True(w.t, ok, "the helper process exited")
		return line
	case <-time.After(20 * time.Second):
		w.t.Fatal("the helper process did not answer")
		return ""
	}
}

// do sends a command line and returns the answer.
func (w *writer) do(line string) string {
	w.t.Helper()
	_, err := fmt.Fprintln(w.stdin, line)
	require.NoError(w.t, err)
	return w.next()
}

// TestLockOnlyForTheCall: a Go program's Archive opened for writing (the
// helper process A) holds the archive's lock only during its calls. While
// it idles, before or after a read, an ingest or a claims check, another
// process (this one, B) reads and writes without waiting; while A is in
// the middle of a write, B's read waits for it and then succeeds, or gives
// up after its LockTimeout with ErrLocked naming that option.
func TestLockOnlyForTheCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.db")
	a := startWriter(t, path)
	const quick = 500 * time.Millisecond // well under the 5 s default: B must not wait at all
	for i, tc := range []struct {
		name string
		a    string // what A does before B's turn ("" nothing)
		want string // A's answer
	}{
		{"idle after Open", "", ""},
		{"after a find", "find Alice", "ok 1"},
		{"after an ingest", "ingest carol.txt Carol paid Dave.", "ok"},
		{"after a claims check", "check run-1", "ok 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.a != "" {
				require.Equal(t, tc.want, a.do(tc.a))
			}
			start := time.Now()
			r, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true, LockTimeout: quick})
			require.NoError(t, err, "a reader opens beside the idle writer")
			docs, err := r.Documents()
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(docs), 1)
			found, err := r.Find("Alice", 0)
			require.NoError(t, err)
			require.Len(t, found.Documents, 1)
			require.NoError(t, r.Close())

			w, err := chronicle.Open(path, &chronicle.Options{LockTimeout: quick})
			require.NoError(t, err, "a writer opens beside the idle writer")
			_, err = w.Ingest(fmt.Sprintf("b-%d.txt", i), []byte(fmt.Sprintf("B wrote %d.\n", i)))
			require.NoError(t, err)
			require.NoError(t, w.Close())
			require.Less(t, time.Since(start), 2*time.Second, "B waited for the idle writer")
		})
	}

	t.Run("in the middle of a write", func(t *testing.T) {
		short, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true, LockTimeout: 100 * time.Millisecond})
		require.NoError(t, err)
		defer short.Close()
		long, err := chronicle.Open(path, &chronicle.Options{ReadOnly: true, LockTimeout: 20 * time.Second})
		require.NoError(t, err)
		defer long.Close()

		require.Equal(t, "writing", a.do("hold run-2"))
		// A reader that may not wait long enough gives up, and is told the
		// Go option that waits longer, not the CLI's flag.
		_, err = short.Documents()
		require.ErrorIs(t, err, chronicle.ErrLocked)
		require.Contains(t, err.Error(), "archive "+path+": archive is in use by another process: process ")
		require.Contains(t, err.Error(), "(waited 100ms; try again when it finishes, or wait longer with Options.LockTimeout)")
		require.NotContains(t, err.Error(), "--wait")
		verdict, err := short.Verify([]byte("CHRONICLE-ARCHIVE-RECEIPT-V1\n"))
		require.Equal(t, chronicle.Invalid, verdict, "a malformed receipt is INVALID without the lock")
		require.Error(t, err)

		// A patient reader waits for the write, then reads what it wrote.
		read := make(chan error, 1)
		go func() {
			_, err := long.Documents()
			read <- err
		}()
		select {
		case err := <-read:
			t.Fatalf("the reader did not wait for the write: %v", err)
		case <-time.After(300 * time.Millisecond):
		}
		_, err = fmt.Fprintln(a.stdin, "go")
		require.NoError(t, err)
		require.Equal(t, "ok 1", a.next())
		select {
		case err := <-read:
			require.NoError(t, err, "the waiting reader reads once the write committed")
		case <-time.After(10 * time.Second):
			t.Fatal("the reader still waits after the write")
		}
		// And the writer is idle again.
		_, err = short.Documents()
		require.NoError(t, err)
	})
}

// TestArchiveAnswerJSON pins what ArchiveAnswer.JSON holds: for Find one
// line per document, for Entity one per event, each ending in a newline
// (the lines the CLI prints less "names"); for Settle one line without a
// newline, as Answer.JSON for one document. The receipt binds exactly these
// bytes.
func TestArchiveAnswerJSON(t *testing.T) {
	a, _ := openTemp(t)
	for _, f := range []string{"testdata/samples/alice-bob-en.txt", "testdata/samples/ahmed-khalid-ar.txt"} {
		_, err := a.IngestFile(f)
		require.NoError(t, err)
	}
	_, err := a.Ingest("again.txt", []byte("Alice and Bob met again.\n"))
	require.NoError(t, err)
	doc := "testdata/samples/alice-bob-en.txt"
	for _, tc := range []struct {
		name  string
		ask   func() ([]byte, []byte, error) // JSON, receipt
		lines int                            // newline-terminated lines; -1: one line without a newline
	}{
		{"Find, two documents", func() ([]byte, []byte, error) {
			ans, err := a.Find("Alice", 0)
			require.NoError(t, err)
			require.Len(t, ans.Documents, 2)
			return ans.JSON, ans.Receipt, err
		}, 2},
		{"Find, limit 1", func() ([]byte, []byte, error) {
			ans, err := a.Find("Alice", 1)
			return ans.JSON, ans.Receipt, err
		}, 1},
		{"Find, nothing", func() ([]byte, []byte, error) {
			ans, err := a.Find("Zebulon", 0)
			return ans.JSON, ans.Receipt, err
		}, 0},
		{"Entity", func() ([]byte, []byte, error) {
			ans, err := a.Entity("Alice")
			require.NoError(t, err)
			require.Len(t, ans.Documents, 1)
			return ans.JSON, ans.Receipt, err
		}, 3},
		{"Settle", func() ([]byte, []byte, error) {
			ans, err := a.Settle("Did Alice repay Bob?")
			return ans.JSON, ans.Receipt, err
		}, -1},
		{"Query", func() ([]byte, []byte, error) {
			ans, err := a.Query(doc, "Did Alice repay Bob?")
			return ans.JSON, ans.Receipt, err
		}, -1},
		{"FindIn", func() ([]byte, []byte, error) {
			ans, err := a.FindIn(doc, "Alice")
			return ans.JSON, ans.Receipt, err
		}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js, rec, err := tc.ask()
			require.NoError(t, err)
			if tc.lines < 0 {
				require.NotEmpty(t, js)
				require.NotContains(t, string(js), "\n")
				require.True(t, json.Valid(js), "%s", js)
			} else {
				require.Equal(t, tc.lines, bytes.Count(js, []byte("\n")), "%s", js)
				for _, line := range bytes.SplitAfter(js, []byte("\n")) {
					if len(line) == 0 {
						continue // after the last newline
					}
					require.True(t, bytes.HasSuffix(line, []byte("\n")), "%q", line)
					require.True(t, json.Valid(line), "%s", line)
					require.NotContains(t, string(line), `"names"`)
				}
			}
			sum := sha256.Sum256(js)
			require.Contains(t, string(rec), "result_sha256:"+hex.EncodeToString(sum[:])+"\n", "the receipt binds JSON")
		})
	}
}

// readOnlyDir is an empty directory that cannot be written: a read-only
// bind mount for root (whom permission bits do not stop), else a
// directory without write permission.
func readOnlyDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if os.Geteuid() != 0 {
		require.NoError(t, os.Chmod(dir, 0o555))
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		return dir
	}
	mnt := t.TempDir()
	for _, args := range [][]string{{"--bind", dir, mnt}, {"-o", "remount,ro,bind", mnt}} {
		out, err := exec.Command("mount", args...).CombinedOutput()
		require.NoError(t, err, "mount %q: %s", args, out)
	}
	t.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return mnt
}

// TestOpenInReadOnlyDirectory: an archive that cannot be created is named
// with its directory, not by the temporary file creation works in.
func TestOpenInReadOnlyDirectory(t *testing.T) {
	dir := readOnlyDir(t)
	path := filepath.Join(dir, "new.db")
	_, err := chronicle.Open(path, nil)
	require.Error(t, err)
	cause := "permission denied"
	if os.Geteuid() == 0 {
		cause = "read-only file system"
	}
	require.Equal(t, "archive "+path+": cannot create it: the directory "+dir+" is not writable ("+cause+")", err.Error())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

// TestSparseIngestsDoNotPause: an Ingest after the Archive idled does not
// pause for waiters as a batch does between documents (the archive was
// free meanwhile): the fastest of three takes less than that pause (60 ms).
func TestSparseIngestsDoNotPause(t *testing.T) {
	a, _ := openTemp(t)
	_, err := a.Ingest("first.txt", []byte("First.\n")) // a batch does not pause before its first document either
	require.NoError(t, err)
	fastest := time.Hour
	for i := range 3 {
		time.Sleep(550 * time.Millisecond) // longer than a batch goes between pauses
		start := time.Now()
		_, err := a.Ingest(fmt.Sprintf("n%d.txt", i), []byte(fmt.Sprintf("Note %d.\n", i)))
		require.NoError(t, err)
		fastest = min(fastest, time.Since(start))
	}
	require.Less(t, fastest, 60*time.Millisecond)
}

// TestDamagedArchiveIsAnError: on a damaged archive the Go API returns
// the *DamageError the chronicle command prints (errors.As), naming the
// archive; it does not panic, and the Archive stays usable.
func TestDamagedArchiveIsAnError(t *testing.T) {
	t.Parallel()
	a, path := openTemp(t)
	// Enough text that the chunks bucket has a page of its own.
	words := []string{"Alice", "Bob", "repaid", "lent", "ledger", "market", "أحمد", "خالد"}
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d: %s %s %d\n", i, words[i%len(words)], words[i*i%7], i*7919%1000003)
	}
	_, err := a.Ingest("ledger.txt", []byte(b.String()))
	require.NoError(t, err)
	require.NoError(t, a.Close())

	t.Run("a page that cannot be read", func(t *testing.T) {
		damaged := pagedamage.ZeroRoot(t, path, "chunks")
		d, err := chronicle.Open(damaged, &chronicle.Options{ReadOnly: true})
		require.NoError(t, err, "the header pages and the meta bucket check")
		defer d.Close()
		for i := range 2 { // the Archive survives the damage it met
			ans, err := d.FindIn("ledger.txt", "Alice")
			require.Nil(t, ans, "call %d", i)
			var damage *chronicle.DamageError
			require.ErrorAs(t, err, &damage, "call %d", i)
			require.Equal(t, db.PageUnreadable, damage.Kind)
			require.Equal(t, fmt.Sprintf("archive %s is damaged: a page could not be read; `chronicle check` lists the problems it can find", damaged), err.Error())
			require.ErrorIs(t, err, chronicle.ErrDamaged)
			require.ErrorIs(t, err, chronicle.ErrCorrupt)
		}
		docs, err := d.Documents()
		require.NoError(t, err, "a read that does not meet the page")
		require.Len(t, docs, 1)
	})

	t.Run("a file too short for its header pages", func(t *testing.T) {
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		short := filepath.Join(t.TempDir(), "short.db")
		require.NoError(t, os.WriteFile(short, raw[:5000], 0o600))
		d, err := chronicle.Open(short, nil)
		require.Nil(t, d)
		var damage *chronicle.DamageError
		require.ErrorAs(t, err, &damage)
		require.Equal(t, db.TooShort, damage.Kind)
		require.Equal(t, fmt.Sprintf("archive %s: not a Chronicle archive, or a damaged one (the file is too short to hold its header pages); if it is an archive, restore it from a copy", short), err.Error())
	})
}
