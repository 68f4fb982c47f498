package main

// The damage harness (issue 12, db/RELIABILITY.md): copies of a multi-document
// archive are damaged (flipped bytes, a zeroed 4 KiB page, a truncation)
// with fixed seeds, and every read command runs on each copy through the
// real binary. A damaged archive may fail a command, but it must never
// answer differently from the undamaged archive with exit 0 (a wrong
// answer), never say VALID for a receipt whose bound bytes changed, never
// say VALID without a warning (issue 24) for a receipt of a document the
// copy no longer leads to by its names or indexes while check fails, and
// `check` must fail wherever any command failed or a read of the copy
// faults.
//
// CHRONICLE_DAMAGE_TRIALS sets the number of trials (default 200; `make
// reliability` runs 3000 and prints the counts).

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// damageCmd is one read command of a trial. doc is the document whose
// bytes it reads by hash (for the VALID-over-damage rule), "" if none in
// particular; all marks commands that read every document.
type damageCmd struct {
	name string
	args []string
	doc  string
	// verdict: a verify-like command (VALID lines).
	verdict bool
	all     bool
	// files: output files (relative to the trial directory) whose bytes
	// are part of the answer.
	files []string
}

// damageOutcome is one command's run on a damaged copy. warned: a
// verdict command said the archive is damaged beside its verdict (the
// JSON "warning" field, removed from res.stdout before the comparison).
type damageOutcome struct {
	res    result
	wrong  bool
	warned bool
}

type damageTrial struct {
	n        int
	kind     string
	detail   string
	outcomes []damageOutcome
	check    result
	damaged  map[string]string // documents whose bound bytes were damaged: what differs
	// unreachable: documents that the copy no longer leads to by one of
	// their names, source paths, number or line index record (the lookups
	// commands make), with the lookup that fails.
	unreachable map[string]string
}

// docKeys are the keys by which commands reach a document: name or
// source path (names bucket), number (seqs) and line index record
// (lines), read from the undamaged archive.
type docKeys struct {
	names [][]byte
	seq   []byte
}

// lookupKeys reads every document's keys from the archive at path.
func lookupKeys(t *testing.T, path string, docs []string) map[string]docKeys {
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	out := map[string]docKeys{}
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		for _, d := range docs {
			key, _ := hex.DecodeString(d)
			var rec struct {
				Seq     uint64            `json:"seq"`
				Names   []string          `json:"names"`
				Sources map[string]string `json:"sources"`
			}
			require.NoError(t, json.Unmarshal(tx.Bucket([]byte("docs")).Get(key), &rec))
			require.NotZero(t, rec.Seq)
			k := docKeys{seq: binary.BigEndian.AppendUint64(nil, rec.Seq)}
			for _, n := range rec.Names {
				k.names = append(k.names, []byte(n))
			}
			for _, abs := range rec.Sources {
				k.names = append(k.names, append([]byte{0}, abs...))
			}
			out[d] = k
		}
		return nil
	}))
	return out
}

// unreachableDocs lists the documents the archive at path no longer leads
// to by the keys of keys. A lookup that faults in the harness says nothing
// (see the VALID-over-damage rule below: the binary may read there).
func unreachableDocs(path string, keys map[string]docKeys) map[string]string {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	out := map[string]string{}
	var b *bolt.DB
	func() {
		defer func() { _ = recover() }()
		b, _ = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	}()
	if b == nil {
		return out
	}
	defer b.Close()
	for d, k := range keys {
		key, _ := hex.DecodeString(d)
		func() {
			defer func() { _ = recover() }()
			_ = b.View(func(tx *bolt.Tx) error {
				names, seqs, lines := tx.Bucket([]byte("names")), tx.Bucket([]byte("seqs")), tx.Bucket([]byte("lines"))
				if names == nil || seqs == nil || lines == nil {
					return nil
				}
				for _, n := range k.names {
					if string(names.Get(n)) != string(key) {
						out[d] = fmt.Sprintf("name %q", n)
						return nil
					}
				}
				switch {
				case string(seqs.Get(k.seq)) != string(key):
					out[d] = "its number"
				case lines.Get(k.seq) == nil:
					out[d] = "its line index record"
				}
				return nil
			})
		}()
	}
	return out
}

// warningField is the "warning" a verdict command adds to its JSON when
// the verdict is VALID beside damage; warningLine is the line it prints on
// stderr in the readable view.
var (
	warningField = regexp.MustCompile(`,"warning":"(?:[^"\\]|\\.)*"`)
	warningLine  = regexp.MustCompile("(?m)^chronicle [a-z]+: warning: .* VALID from .* is damaged .*; run `chronicle check`$")
)

func damageTrials(t *testing.T) int {
	n := 200
	if s := os.Getenv("CHRONICLE_DAMAGE_TRIALS"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(t, err, "CHRONICLE_DAMAGE_TRIALS")
		n = v
	}
	return n
}

// buildDamageArchive fills w's archive with 20+ documents, receipts and a
// kept claims check; it returns the receipt files (by document hash) and
// the claims rows file.
func buildDamageArchive(t *testing.T, w *ws) (receipts map[string]string, rows string) {
	golden, err := filepath.Glob(filepath.Join(goldenDir, "*", "input.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, golden)
	for _, p := range golden {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		w.write(filepath.Join("golden", filepath.Base(filepath.Dir(p))+".txt"), string(data))
	}
	for _, name := range []string{"testdata/samples/ahmed-khalid-ar.txt", "testdata/samples/alice-bob-en.txt", "testdata/claims/samples.claims.jsonl"} {
		data, err := os.ReadFile(filepath.Join("../..", name))
		require.NoError(t, err)
		w.write(name, string(data))
	}
	r := rand.New(rand.NewSource(12))
	for i := 0; i < 10; i++ {
		var b strings.Builder
		for j := 0; j < 40+r.Intn(200); j++ {
			switch r.Intn(4) {
			case 0:
				fmt.Fprintf(&b, "@chronicle\tPerson%d\tPAID_TO\tTrader%d\t%d\tSAR\tT%d\tASSERTED\tPOSITIVE\tCONFIRMED\n", r.Intn(6), r.Intn(6), 1+r.Intn(500), j)
			case 1:
				fmt.Fprintf(&b, "@chronicle\tأحمد%d\tBORROWED_FROM\tخالد\t%d\tSAR\tاليوم %d\tASSERTED\tPOSITIVE\tCONFIRMED\n", r.Intn(3), 10+r.Intn(90), j)
			case 2:
				fmt.Fprintf(&b, "Line %d of ledger %d mentions Person%d and the market.\n", j, i, r.Intn(6))
			default:
				fmt.Fprintf(&b, "في السطر %d ذكر التاجر سعود السوق والمطر %d.\n", j, r.Intn(1000))
			}
		}
		lang := "en"
		if i%2 == 1 {
			lang = "ar"
		}
		w.write(fmt.Sprintf("gen/%s-%02d.txt", lang, i), b.String())
	}
	w.ok("ingest", "golden", "testdata/samples", "gen")
	w.ok("ingest", "gen/en-00.txt", "--name", "ledger-alias.txt")
	docs := w.docs()
	require.GreaterOrEqual(t, len(docs), 20)
	byName := map[string]string{}
	for _, d := range docs {
		for _, n := range d.Names {
			byName[n] = d.SHA256
		}
	}
	receipts = map[string]string{}
	keep := func(file, docName string, args ...string) {
		w.ok(append(args, "--receipt", file)...)
		receipts[byName[docName]] = filepath.Join(w.dir, file)
	}
	keep("q-en.receipt", "testdata/samples/alice-bob-en.txt", "query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?")
	keep("q-ar.receipt", "testdata/samples/ahmed-khalid-ar.txt", "query", "testdata/samples/ahmed-khalid-ar.txt", "هل سدد أحمد دين خالد؟")
	keep("f-gen.receipt", "gen/ar-03.txt", "find", "السوق", "--doc", "gen/ar-03.txt")
	keep("c-g5.receipt", "golden/g5_literal_claims.txt", "claim", "golden/g5_literal_claims.txt", "Alice", "owns", "Book")
	w.ok("claims", "check", "testdata/claims/samples.claims.jsonl", "--out", "rows.jsonl")
	return receipts, filepath.Join(w.dir, "rows.jsonl")
}

func damageCommands(receipts map[string]string, rows string) []damageCmd {
	var docs []string
	for d := range receipts {
		docs = append(docs, d)
	}
	sort.Strings(docs)
	// Commands that list receipts or totals run before those that may keep
	// a receipt, so that their answers do not depend on whether a read
	// writes.
	cmds := []damageCmd{
		{name: "docs", args: []string{"docs", "--json"}, all: true},
		{name: "stats", args: []string{"stats", "--json"}, all: true},
		{name: "entities", args: []string{"entities"}},
		{name: "receipts --verify", args: []string{"receipts", "--verify"}, verdict: true, all: true},
		{name: "claims verify", args: []string{"claims", "verify", rows}, verdict: true},
	}
	for _, d := range docs {
		cmds = append(cmds, damageCmd{name: "verify " + d[:8], args: []string{"verify", receipts[d]}, doc: d, verdict: true})
	}
	for _, d := range docs {
		cmds = append(cmds, damageCmd{name: "show " + d[:8], args: []string{"show", d[:12]}, doc: d})
	}
	cmds = append(cmds,
		damageCmd{name: "export " + docs[0][:8], args: []string{"export", docs[0][:12], "exp"}, doc: docs[0],
			files: []string{"exp"}},
		damageCmd{name: "find", args: []string{"find", "Person1 السوق", "--json"}, all: true},
		damageCmd{name: "find Alice", args: []string{"find", "Alice", "--json"}, all: true},
		damageCmd{name: "find --doc", args: []string{"find", "market", "--doc", "gen/en-02.txt"}},
		damageCmd{name: "query", args: []string{"query", "testdata/samples/alice-bob-en.txt", "Did Alice repay Bob?"}},
		damageCmd{name: "query ar", args: []string{"query", "golden/g4_arabic_typed_fixture.txt", "هل سدد أحمد دين خالد؟"}},
		damageCmd{name: "claim", args: []string{"claim", "golden/g5_literal_claims.txt", "Alice", "owns", "Book"}},
		damageCmd{name: "entity", args: []string{"entity", "Trader2", "--json"}, all: true},
		damageCmd{name: "entity ar", args: []string{"entity", "خالد", "--json"}, all: true},
	)
	return cmds
}

// runDamageCmd runs one command in dir on the archive db; the files it
// writes are appended to its stdout as digests.
func runDamageCmd(dir, db string, c damageCmd) (result, error) {
	r, err := runBinErr(chronicleBin, dir, nil, append([]string{"--db=" + db}, c.args...)...)
	if err != nil {
		return r, err
	}
	// stats names the archive file: each copy has its own.
	r.stdout = strings.ReplaceAll(r.stdout, db, "ARCHIVE")
	for _, f := range c.files {
		_ = filepath.WalkDir(filepath.Join(dir, f), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				data, _ := os.ReadFile(p)
				sum := sha256.Sum256(data)
				rel, _ := filepath.Rel(dir, p)
				r.stdout += fmt.Sprintf("[file %s %s]\n", rel, hex.EncodeToString(sum[:]))
			}
			return nil
		})
		_ = os.RemoveAll(filepath.Join(dir, f))
	}
	return r, nil
}

// usedSize is the size of the archive's pages in use (bbolt's high-water
// mark): damage beyond it changes nothing.
func usedSize(t *testing.T, path string) int64 {
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer b.Close()
	var size int64
	require.NoError(t, b.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil }))
	return size
}

// damage applies trial n's damage to data (deterministic in n).
func damage(n int, data []byte, used int64) ([]byte, string, string) {
	r := rand.New(rand.NewSource(int64(n)*7919 + 1))
	out := append([]byte(nil), data...)
	switch n % 3 {
	case 0:
		k := 1 + r.Intn(8)
		var at []string
		for i := 0; i < k; i++ {
			off := r.Int63n(used)
			out[off] ^= byte(1 + r.Intn(255))
			at = append(at, strconv.FormatInt(off, 10))
		}
		return out, "flip", fmt.Sprintf("%d bytes flipped at %s", k, strings.Join(at, ","))
	case 1:
		page := r.Int63n(used / 4096)
		clear(out[page*4096 : page*4096+4096])
		return out, "zero", fmt.Sprintf("page %d zeroed", page)
	default:
		size := r.Int63n(used)
		return out[:size], "truncate", fmt.Sprintf("truncated to %d of %d bytes", size, len(data))
	}
}

// docValues returns the stored values a document's receipt binds (record,
// event table, chunks) by bucket and key, read from the archive at path,
// with "unreadable" for a document whose pages fault; nil when the file
// does not open as a bbolt file (no command can read it either).
func docValues(path string, docs []string, chunks map[string]int) map[string]map[string]string {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var b *bolt.DB
	func() {
		defer func() { _ = recover() }()
		b, _ = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	}()
	if b == nil {
		return nil
	}
	defer b.Close()
	out := map[string]map[string]string{}
	for _, d := range docs {
		key, _ := hex.DecodeString(d)
		vals := map[string]string{}
		func() {
			defer func() {
				if r := recover(); r != nil {
					vals = map[string]string{"unreadable": fmt.Sprint(r)}
				}
			}()
			_ = b.View(func(tx *bolt.Tx) error {
				for _, bucket := range []string{"docs", "events"} {
					if bk := tx.Bucket([]byte(bucket)); bk != nil {
						vals[bucket] = string(bk.Get(key))
					}
				}
				// Chunks by exact key (digest ‖ index, u32 BE), as a read
				// of the document does: the pristine archive's count, or
				// until the first missing one.
				if bk := tx.Bucket([]byte("chunks")); bk != nil {
					for i := 0; chunks == nil && i < 1<<20 || chunks != nil && i < chunks[d]; i++ {
						k := binary.BigEndian.AppendUint32(append([]byte(nil), key...), uint32(i))
						v := bk.Get(k)
						if v == nil && chunks == nil {
							break
						}
						vals["chunk "+hex.EncodeToString(k)] = chunkContent(v)
					}
				}
				return nil
			})
		}()
		out[d] = vals
	}
	return out
}

// chunkContent is what a stored chunk holds: the source bytes its S2 block
// decodes to. A changed frame that decodes to the same bytes (a copy from
// another offset of repeated text) is not damage to the document: its
// digests still check and its receipts are rightly VALID.
func chunkContent(frame []byte) string {
	if frame == nil {
		return ""
	}
	src, err := s2.Decode(nil, frame)
	if err != nil {
		return "undecodable " + string(frame)
	}
	return "source " + string(src)
}

// damagedDocs lists the documents whose bound bytes differ in the archive
// at path from want (none when the file does not open at all), each with
// what differs first (a bucket, a chunk key, "unreadable"): a finding
// names it.
func damagedDocs(path string, docs []string, want map[string]map[string]string) map[string]string {
	counts := map[string]int{}
	for d, vals := range want {
		for k := range vals {
			if strings.HasPrefix(k, "chunk ") {
				counts[d]++
			}
		}
	}
	got := docValues(path, docs, counts)
	out := map[string]string{}
	if got == nil {
		return out
	}
	for _, d := range docs {
		if why, ok := got[d]["unreadable"]; ok {
			out[d] = "unreadable: " + why
			continue
		}
		if len(got[d]) != len(want[d]) {
			out[d] = fmt.Sprintf("%d values instead of %d", len(got[d]), len(want[d]))
			continue
		}
		var diff []string
		for k, v := range want[d] {
			if g := got[d][k]; g != v {
				at := 0
				for at < min(len(g), len(v)) && g[at] == v[at] {
					at++
				}
				diff = append(diff, fmt.Sprintf("%s (%d bytes, was %d; first difference at byte %d)", k, len(g), len(v), at))
			}
		}
		if len(diff) > 0 {
			sort.Strings(diff)
			out[d] = strings.Join(diff, ", ")
		}
	}
	return out
}

// badMessage reports an error output that is not one clear line.
func badMessage(r result) bool {
	if r.code == 0 || r.code == 1 && r.stderr == "" && r.stdout != "" { // a verdict (INVALID) on stdout
		return false
	}
	if len(lines(r.stderr)) != 1 {
		return true
	}
	for _, s := range []string{"runtime error", "goroutine ", "panic", "bbolt", "invalid memory"} {
		if strings.Contains(r.stderr, s) {
			return true
		}
	}
	return false
}

func TestDamageHarness(t *testing.T) {
	trials := damageTrials(t)
	w := newWS(t)
	receipts, rows := buildDamageArchive(t, w)
	cmds := damageCommands(receipts, rows)
	pristine, err := os.ReadFile(w.db)
	require.NoError(t, err)
	used := usedSize(t, w.db)
	var allDocs []string
	for _, d := range w.docs() {
		allDocs = append(allDocs, d.SHA256)
	}
	want := docValues(w.db, allDocs, nil)
	require.NotNil(t, want)
	keys := lookupKeys(t, w.db, allDocs)

	// The reference answers, from an undamaged copy in a directory of its
	// own (reads may keep receipts in the archive they read).
	refDir := t.TempDir()
	refDB := filepath.Join(refDir, "archive.db")
	require.NoError(t, os.WriteFile(refDB, pristine, 0o600))
	ref := make([]string, len(cmds))
	check := damageCmd{name: "check", args: []string{"check"}}
	for i, c := range cmds {
		r, err := runDamageCmd(refDir, refDB, c)
		require.NoError(t, err)
		require.Equal(t, 0, r.code, "reference %s\n%s", c.name, r)
		ref[i] = r.stdout
	}
	r, err := runDamageCmd(refDir, refDB, check)
	require.NoError(t, err)
	require.Equal(t, 0, r.code, "reference check\n%s", r)

	results := make([]damageTrial, trials)
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var runErr error
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range work {
				dir, err := os.MkdirTemp(w.dir, "trial-")
				if err == nil {
					err = runTrial(n, dir, pristine, used, cmds, ref, check, &results[n], allDocs, want, keys)
					_ = os.RemoveAll(dir)
				}
				if err != nil {
					mu.Lock()
					runErr = err
					mu.Unlock()
				}
			}
		}()
	}
	for n := range trials {
		work <- n
	}
	close(work)
	wg.Wait()
	require.NoError(t, runErr)

	// The counts.
	kinds := map[string]int{}
	failedCmds, wrong, missed, validOver, bad, damagedCopies, faultedCopies, silentValid := 0, 0, 0, 0, 0, 0, 0, 0
	var report, unclear []string
	debug := os.Getenv("CHRONICLE_DAMAGE_DEBUG")
	for _, tr := range results {
		kinds[tr.kind]++
		if debug == strconv.Itoa(tr.n) {
			t.Logf("trial %d (%s): check exit %d: %s", tr.n, tr.detail, tr.check.code, tr.check.stdout+tr.check.stderr)
			for i, o := range tr.outcomes {
				t.Logf("  %s: exit %d wrong=%v: %s", cmds[i].name, o.res.code, o.wrong, o.res.stderr)
			}
		}
		anyFailed := false
		for i, o := range tr.outcomes {
			if o.res.code != 0 {
				anyFailed = true
				failedCmds++
				if badMessage(o.res) {
					bad++
					if len(unclear) < 10 {
						unclear = append(unclear, fmt.Sprintf("trial %d (%s): %s: unclear message %q", tr.n, tr.detail, cmds[i].name, o.res.stderr))
					}
				}
			}
			if o.wrong {
				wrong++
				if len(report) < 40 {
					report = append(report, fmt.Sprintf("trial %d (%s): WRONG ANSWER from %s:\n--- got\n%s--- want\n%s", tr.n, tr.detail, cmds[i].name, o.res.stdout, ref[i]))
				}
			}
		}
		// VALID over damage: a receipt verified although the bytes it
		// binds (the document's record, event table, chunks) were damaged.
		//
		// A document the harness could not read (its read faulted) is not
		// damaged in this sense. Its bytes may be intact: the fault comes
		// from a damaged page element whose offset points outside the
		// file's mapping, and bbolt reads there unchecked. Whether that
		// faults depends on the process's address space; where the binary
		// maps other memory it reads that instead, and its lookups may
		// still reach the right pages (at the first element of a branch
		// page the comparison cannot change which child bbolt descends
		// to: flips in the root bucket's pages made every document
		// "unreadable" here while every receipt verified, its bytes
		// hashing to their digests). What such damage must do is fail
		// check, whose page walk bounds every element (counted below).
		damaged, faulted := map[string]string{}, false
		for d, why := range tr.damaged {
			if strings.HasPrefix(why, "unreadable: ") {
				faulted = true
				continue
			}
			damaged[d] = why
		}
		for i, o := range tr.outcomes {
			c := cmds[i]
			if !c.verdict || c.name == "claims verify" || o.res.code != 0 || o.wrong {
				continue
			}
			if (c.doc != "" && damaged[c.doc] != "") || (c.all && len(damaged) > 0) {
				validOver++
				if len(report) < 40 {
					report = append(report, fmt.Sprintf("trial %d (%s): VALID over damage from %s (its document: %q; damaged: %v; check: %.2000s)",
						tr.n, tr.detail, c.name, damaged[c.doc], tr.damaged, tr.check.stdout+tr.check.stderr))
				}
			}
		}
		// VALID beside damage must say so: a receipt of a document the
		// copy no longer leads to by its names or indexes replays from
		// the document's bytes (rightly VALID), but check fails, and the
		// verdict must carry the warning that tells the user to run it.
		for i, o := range tr.outcomes {
			c := cmds[i]
			if !c.verdict || c.name == "claims verify" || o.res.code != 0 || o.wrong || o.warned || tr.check.code == 0 {
				continue
			}
			if (c.doc != "" && tr.unreachable[c.doc] != "") || (c.all && len(tr.unreachable) > 0) {
				silentValid++
				if len(report) < 40 {
					report = append(report, fmt.Sprintf("trial %d (%s): VALID WITHOUT A WARNING from %s beside damage (unreachable: %v)",
						tr.n, tr.detail, c.name, tr.unreachable))
				}
			}
		}
		if faulted {
			faultedCopies++
		}
		if faulted && !anyFailed && tr.check.code == 0 { // (with a failed command, counted just below)
			missed++
			if len(report) < 40 {
				report = append(report, fmt.Sprintf("trial %d (%s): MISSED DAMAGE: check passed a copy whose reads fault: %v", tr.n, tr.detail, tr.damaged))
			}
		}
		if anyFailed {
			damagedCopies++
			if tr.check.code == 0 {
				missed++
				if len(report) < 40 {
					var failed []string
					for i, o := range tr.outcomes {
						if o.res.code != 0 {
							failed = append(failed, fmt.Sprintf("%s (exit %d): %s", cmds[i].name, o.res.code, strings.TrimSpace(o.res.stderr)))
						}
					}
					report = append(report, fmt.Sprintf("trial %d (%s): MISSED DAMAGE: check passed while commands failed:\n  %s",
						tr.n, tr.detail, strings.Join(failed, "\n  ")))
				}
			}
		}
	}
	t.Logf("damage harness: %d trials (flip %d, zero %d, truncate %d), %d commands each; "+
		"%d copies with failing commands, %d commands failed cleanly, %d unclear messages, %d copies whose reads fault in the harness; "+
		"%d wrong answers, %d VALID over damage, %d VALID beside damage without a warning, %d missed damage",
		trials, kinds["flip"], kinds["zero"], kinds["truncate"], len(cmds)+1,
		damagedCopies, failedCmds, bad, faultedCopies, wrong, validOver, silentValid, missed)
	for _, line := range append(report, unclear...) {
		t.Log(line)
	}
	// CHRONICLE_DAMAGE_KEEP=DIR keeps what a finding needs to be studied
	// again: the pristine archive (its layout varies from run to run) and
	// each flagged trial's damaged copy, made again from it.
	if keep := os.Getenv("CHRONICLE_DAMAGE_KEEP"); keep != "" && (wrong > 0 || validOver > 0 || silentValid > 0 || missed > 0) {
		require.NoError(t, os.MkdirAll(keep, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(keep, "pristine.db"), pristine, 0o600))
		for _, line := range report {
			var n int
			if _, err := fmt.Sscanf(line, "trial %d", &n); err == nil {
				data, _, _ := damage(n, pristine, used)
				require.NoError(t, os.WriteFile(filepath.Join(keep, fmt.Sprintf("trial-%d.db", n)), data, 0o600))
			}
		}
		t.Logf("kept the pristine archive and the flagged trials' copies in %s", keep)
	}
	require.Zero(t, wrong, "wrong answers")
	require.Zero(t, validOver, "VALID over damaged data")
	require.Zero(t, silentValid, "VALID beside damage without a warning")
	require.Zero(t, missed, "check passed a copy on which a command failed")
}

// runTrial damages a copy of the archive and runs every command on it.
func runTrial(n int, dir string, pristine []byte, used int64, cmds []damageCmd, ref []string, check damageCmd, tr *damageTrial,
	docs []string, want map[string]map[string]string, keys map[string]docKeys) error {
	data, kind, detail := damage(n, pristine, used)
	db := filepath.Join(dir, "archive.db")
	if err := os.WriteFile(db, data, 0o600); err != nil {
		return err
	}
	*tr = damageTrial{n: n, kind: kind, detail: detail, damaged: damagedDocs(db, docs, want), unreachable: unreachableDocs(db, keys)}
	// check first, on the copy exactly as damaged (a read that keeps a
	// receipt may rewrite pages).
	r, err := runDamageCmd(dir, db, check)
	if err != nil {
		return fmt.Errorf("trial %d (%s): check: %w", n, detail, err)
	}
	tr.check = r
	for i, c := range cmds {
		r, err := runDamageCmd(dir, db, c)
		if err != nil {
			return fmt.Errorf("trial %d (%s): %s: %w", n, detail, c.name, err)
		}
		warned := false
		if c.verdict {
			stripped := warningField.ReplaceAllString(r.stdout, "")
			warned, r.stdout = stripped != r.stdout || warningLine.MatchString(r.stderr), stripped
		}
		tr.outcomes = append(tr.outcomes, damageOutcome{res: r, wrong: r.code == 0 && r.stdout != ref[i], warned: warned})
	}
	return nil
}
