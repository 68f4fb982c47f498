package db

import (
	"runtime/debug"
	"sync"
)

// reclaimMin is the smallest read reclaimBefore acts for: below it a
// second copy does not matter.
const reclaimMin = 1 << 20

var reclaim struct {
	sync.Mutex
	pending int64 // bytes of whole documents materialised since the last forced cycle
}

// reclaimBefore runs the collector before a read materialises n bytes (a
// whole document's source or store) when whole documents of at least a
// MiB were materialised since it last did: those copies (the previous
// document's source, a verification's store bytes) are usually garbage by
// now. The freed pages are returned to the system (debug.FreeOSMemory)
// rather than left for reuse, because the new copy may land on other free
// pages: those of a settlement's evidence store, allocated whole but
// mostly never touched, would then be touched for the first time. Otherwise
// the collector would start only once the new allocation had pushed the
// heap past its goal (a cycle the runtime ran while the previous copy was
// still in use freed nothing of it), and the commands that read several
// documents, or one document several times (check, reindex, receipts
// --verify, claims verify), would peak at two or three copies of a
// document instead of one. It collects at most once per document read of
// a MiB or more; the heap being mostly pointer-free bytes, a cycle costs
// far less than reading the document.
func reclaimBefore(n int64) {
	if n < reclaimMin {
		return
	}
	reclaim.Lock()
	defer reclaim.Unlock()
	if reclaim.pending >= reclaimMin {
		debug.FreeOSMemory()
		reclaim.pending = 0
	}
	reclaim.pending += n
}
