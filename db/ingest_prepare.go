package db

import (
	"errors"
	"fmt"
	"sync"

	"github.com/casper-chronicle/chronicle/db/fileio"
	"github.com/casper-chronicle/chronicle/engine"
)

// preparer reads and prepares the files of a batch ahead of their
// commits, on three goroutines (the preparation of one file keeps 1.3-1.5
// cores busy, and a third fills the gaps while another waits), and hands
// them over in order. Files are committed in groups (pathGroup), so the
// workers run ahead of the commits by up to budget: the bytes of the files
// read and not yet committed, each file weighing four times its size plus
// fileWeight for what its preparation adds (its line index, grams, frames).
// A group closes once it holds half the budget (pathGroup.add), so the
// next group is prepared in the other half while it commits.
type preparer struct {
	next   chan preparedFile
	stop   chan struct{}
	done   chan struct{}
	budget *byteBudget
}

// MaxOriginalSize is the largest file ingest reads when it may be an
// original file (a mail, a PDF: kept whole, its texts derived); a text
// file stays limited to engine.MaxSourceSize.
const MaxOriginalSize = 64 << 20

// Memory of the files in flight (see preparer).
const (
	fileWeight     = 32 << 10
	preparerBudget = 4 * groupBytes
)

// preparedFile is one file of the batch, ready to commit or failed to
// read. src is kept to show the line of a rejected source; weight is what
// it holds of the preparer's budget until it is released.
type preparedFile struct {
	path    string
	src     []byte
	pp      *Prepared
	derived *DerivedSet // an original file and what was derived from it
	err     error
	weight  int64
}

func (a *Archive) startPreparing(paths []string, importedAt uint64, known map[Digest]bool, derive DeriveFunc) *preparer {
	pr := &preparer{next: make(chan preparedFile), stop: make(chan struct{}), done: make(chan struct{}),
		budget: newByteBudget(preparerBudget)}
	// Three files are prepared at once, each on its own goroutine, and
	// handed over in order: worker w prepares files w, w+3, ... and queues
	// them on its slot until each is next.
	const workers = 3
	slots := make([]chan preparedFile, workers)
	for i := range slots {
		slots[i] = make(chan preparedFile, GroupFiles)
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				f := preparedFile{path: paths[i]}
				limit := int64(engine.MaxSourceSize)
				if derive != nil { // an original may be larger than a text
					limit = MaxOriginalSize
				}
				if f.src, f.err = fileio.ReadLimited(paths[i], limit); f.err == nil {
					f.weight = 4*int64(len(f.src)) + fileWeight
				}
				if !pr.budget.acquire(i, f.weight) { // an unread file takes its turn too
					return // stopped
				}
				if f.err == nil && derive != nil {
					f.derived, f.err = derive(f.path, f.src)
					switch {
					case f.err == nil && f.derived == nil && len(f.src) > engine.MaxSourceSize:
						// A text: the limit of a source, as when it is read as one.
						f.err = fmt.Errorf("%s: %w (more than %d bytes)", f.path, fileio.ErrTooLarge, engine.MaxSourceSize)
					case f.err == nil && f.derived != nil && len(f.derived.Texts) == 0:
						f.err = errors.New("no text was derived from it")
					case f.err == nil && f.derived != nil:
						// Its texts are prepared here, as a text file is.
						f.err = a.prepareDerived(f.derived, importedAt, known)
					}
				}
				if f.err == nil && f.derived == nil {
					f.pp = a.PrepareUnlessKnown(f.src, importedAt, known)
				}
				select {
				case slots[w] <- f:
				case <-pr.stop:
					return
				}
			}
		}()
	}
	go func() {
		defer close(pr.done)
		defer wg.Wait()
		for i := range paths {
			var f preparedFile
			select {
			case f = <-slots[i%workers]:
			case <-pr.stop:
				return
			}
			select {
			case pr.next <- f:
			case <-pr.stop:
				return
			}
		}
	}()
	return pr
}

// close stops preparing and waits for the goroutines, which use the
// archive's codecs, before the archive closes.
func (pr *preparer) close() {
	close(pr.stop)
	pr.budget.close()
	<-pr.done
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
