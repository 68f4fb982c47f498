package repl

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/casper-chronicle/chronicle/db"
	"github.com/casper-chronicle/chronicle/db/fileio"
)

// Group limits of a batch ingest. A group commits in one transaction (one
// lock, one fsync): the more files it holds, the less each pays for the
// commit, but its prepared documents wait in memory, readers wait for the
// lock while it commits, and its outcome lines wait for it. So a group
// closes at groupFiles files, groupBytes of sources or half the preparer's
// budget, and after groupAge when the next file is not ready yet (a slow
// batch still shows progress).
const (
	groupFiles = 2048
	groupBytes = 16 << 20
	groupAge   = 500 * time.Millisecond
)

// ingestGroup gathers the files of a batch into groups that commit in one
// transaction each (db.IngestFiles) and prints every entry's outcome line
// in walk order, a file's only once its group has committed.
type ingestGroup struct {
	x        *ctx
	a        *db.Archive
	progress *progress
	single   bool // one file: --name and --receipt apply to it
	maxFiles int  // files per group (--commit-every)

	files  []db.FileToIngest
	srcs   [][]byte      // each file's bytes, where a rejection is located
	lines  []pendingLine // the outcome lines waiting for the commit, in order
	outs   []db.FileOutcome
	bytes  int64     // of the files' sources
	weight int64     // of the preparer's budget the group holds
	pr     *preparer // the files' source
	opened time.Time // when the group's first file came

	rejected, counted int
	seen              int       // files handed to groups
	landed            int       // files whose group committed
	landedBytes       int64     // their bytes
	started           time.Time // of the first file
}

// pendingLine is one outcome line: of file (an index into files), or one
// that print says (file < 0).
type pendingLine struct {
	file  int
	print func()
}

// later prints a line that needs no commit (skipped, empty, rejected
// before reading) after the lines of the files before it.
func (g *ingestGroup) later(print func()) {
	if len(g.files) == 0 {
		g.progress.clear()
		print()
		return
	}
	g.lines = append(g.lines, pendingLine{file: -1, print: print})
}

// next returns the next prepared file. A group waiting longer than
// groupAge commits first, so its lines do not wait for a slow file.
func (g *ingestGroup) next() (prepared, error) {
	if len(g.files) > 0 {
		wait := groupAge - time.Since(g.opened)
		if wait > 0 {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case f := <-g.pr.next:
				return f, nil
			case <-t.C:
			}
		}
		if err := g.commit(); err != nil {
			return prepared{}, err
		}
	}
	return <-g.pr.next, nil
}

// add puts file f in the group (or, when it could not be read, its
// rejection line after the group's lines) and commits a full group.
func (g *ingestGroup) add(f prepared) error {
	if g.started.IsZero() {
		g.started = time.Now()
	}
	g.seen++
	g.step(f.path)
	g.weight += f.weight
	if f.err != nil {
		g.rejected++
		g.later(func() { g.x.rejected(newRejection(f.path, nil, f.err)) })
		return nil
	}
	if len(g.files) == 0 {
		g.opened = time.Now()
	}
	var chosen []string
	if name := g.x.p.value("name"); name != "" {
		chosen = append(chosen, name)
	}
	g.lines = append(g.lines, pendingLine{file: len(g.files)})
	g.files = append(g.files, db.FileToIngest{Prepared: f.pp, Path: f.path, Chosen: chosen})
	g.srcs = append(g.srcs, f.src)
	g.bytes += int64(len(f.src))
	if len(g.files) >= g.maxFiles || g.bytes >= groupBytes || g.weight >= preparerBudget/2 {
		return g.commit()
	}
	return nil
}

// step draws the progress line: files seen, and the rate of those landed.
func (g *ingestGroup) step(path string) {
	rate := ""
	if secs := time.Since(g.started).Seconds(); g.landed > 0 && secs > 0 {
		rate = fmt.Sprintf("%.0f docs/s %.1f MB/s  ", float64(g.landed)/secs, float64(g.landedBytes)/1e6/secs)
	}
	g.progress.step(g.seen, rate+path)
}

// commit commits the group's files and prints the lines waiting for it.
// A refused write (the archive is damaged) ends the batch: it returns the
// error, and the lines after that file are not printed (nothing of theirs
// landed).
func (g *ingestGroup) commit() error {
	if len(g.files) > 0 {
		g.outs = g.a.IngestFiles(g.files)
	}
	lines := g.lines
	if g.weight > 0 { // files were read: a preparer gave them
		g.pr.budget.release(g.weight)
	}
	defer func() {
		g.files, g.srcs, g.lines, g.outs, g.bytes, g.weight = nil, nil, nil, nil, 0, 0
	}()
	g.progress.clear()
	for _, l := range lines {
		if l.file < 0 {
			l.print()
			continue
		}
		if err := g.fileLine(l.file); err != nil {
			return err
		}
	}
	return nil
}

// fileLine prints the outcome of file i of the committed group.
func (g *ingestGroup) fileLine(i int) error {
	x, f, out := g.x, g.files[i], g.outs[i]
	if errors.Is(out.Err, db.ErrWriteRefused) {
		// The archive, not the file: the write was refused (nothing
		// changed), and so would every later one be.
		return out.Err
	}
	if out.Err != nil {
		g.rejected++
		x.rejected(newRejection(f.Path, g.srcs[i], out.Err))
		return nil
	}
	res := out.Result
	g.landed++
	g.landedBytes += int64(len(g.srcs[i]))
	if res.Reused {
		x.outcome("reused", f.Path, res, fmt.Sprintf("first imported %s", rfc3339(res.Doc.Imported())))
	} else {
		x.outcome("new", f.Path, res, plural(res.Doc.EventCount, "event"))
	}
	if !(x.p.has("json") || x.env.JSON) { // JSON: the outcome's "moved"
		for _, name := range slices.Sorted(maps.Keys(res.Moved)) {
			fmt.Fprintf(x.env.Stderr, "chronicle ingest: name %q now points at %s (was %s, which stays in the archive)\n",
				sanitize(name), res.Doc.SHA256.Short(), res.Moved[name].Short())
		}
	}
	if g.single && x.p.value("receipt") == "-" {
		if !x.inlineReceipt() { // else it is in the JSON outcome line
			x.out().Write(res.Receipt.Encode())
		}
	} else if g.single && x.p.has("receipt") {
		if err := fileio.WriteOnce(x.p.value("receipt"), res.Receipt.Encode()); err != nil {
			return err
		}
	}
	return nil
}

// byteBudget bounds the bytes held by files in flight. Files take their
// share in batch order (acquire's turn): a file far ahead must not hold
// the room the next file to commit needs, or the group would wait for it
// until groupAge. One file always gets in, whatever its size, so a file
// larger than the budget cannot stall the batch.
type byteBudget struct {
	mu     sync.Mutex
	cond   *sync.Cond
	used   int64
	limit  int64
	turn   int // the index of the file whose turn it is
	closed bool
}

func newByteBudget(limit int64) *byteBudget {
	b := &byteBudget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// acquire takes n bytes for file i of the batch once every earlier file
// has taken its share; false once the budget is closed.
func (b *byteBudget) acquire(i int, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && (b.turn != i || b.used > 0 && b.used+n > b.limit) {
		b.cond.Wait()
	}
	b.used += n
	b.turn++
	b.cond.Broadcast()
	return !b.closed
}

func (b *byteBudget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close wakes every waiter: the batch is over.
func (b *byteBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}
