package repl

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// A damaged archive whose branch page points to itself (or to an
// ancestor) sends bbolt's page search into endless recursion. That is not
// a panic runGuarded can recover: the runtime ends the process when the
// stack reaches its limit, with hundreds of lines of goroutine dumps and
// exit 2, the code of a usage error. Chronicle itself never recurses
// deeper than a page tree (a few levels) or a claims row (32 levels), so
// its goroutine stacks stay far below a megabyte. The stack watch turns
// the runaway into the one line and exit code of any damage: the stack
// limit is lowered to maxStack (a tenth of a second of recursion instead
// of seconds and a gigabyte), and a watcher that samples the stack memory
// every stackPoll reports the archive and exits 1 once it passes
// stackAlarm, before the limit is reached. (check walks the page trees
// from the file first and reports such a loop as a problem.)
//
// The first poll of a command waits firstPoll: each poll stops the world
// and flushes every goroutine's allocation cache, and a find of 15 ms
// paid two or three of them (polling every 25 ms instead of 5 took a
// multi-term find on 43 MB from 16.6 to 15.3 ms, interleaved runs). A
// runaway search is still far from maxStack at firstPoll, and past
// stackAlarm.
const (
	maxStack   = 256 << 20
	stackAlarm = 16 << 20
	firstPoll  = 20 * time.Millisecond
	stackPoll  = 5 * time.Millisecond
)

// watchedArchive is the archive the running command opened (the one a
// runaway page search is in); running counts the commands running, and
// wake starts the watcher's polling when one starts, so an idle REPL is
// never woken.
var (
	watchedArchive atomic.Pointer[string]
	running        atomic.Int32
	wake           = make(chan struct{}, 1)
)

// watching marks a command running on the archive at path until the
// returned function is called.
func watching(path string) (done func()) {
	watchedArchive.Store(&path)
	if running.Add(1) == 1 {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	return func() { running.Add(-1) }
}

var startStackWatch = sync.OnceFunc(func() {
	debug.SetMaxStack(maxStack)
	go func() {
		// runtime.ReadMemStats, not runtime/metrics: importing that
		// package costs every command a tenth of a millisecond at start-up
		// (it builds its table of metric names), more than a stop of the
		// world every stackPoll costs a command that runs that long.
		var ms runtime.MemStats
		idle := true
		for {
			if running.Load() == 0 {
				<-wake
				idle = true
				continue
			}
			if idle {
				time.Sleep(firstPoll)
				idle = false
			} else {
				time.Sleep(stackPoll)
			}
			runtime.ReadMemStats(&ms)
			if ms.StackInuse > stackAlarm {
				path := "the archive"
				if p := watchedArchive.Load(); p != nil {
					path = "archive " + sanitize(*p)
				}
				fmt.Fprintf(os.Stderr, "chronicle: %s is damaged: a page tree loops (a page points back into its own path), and the read could not end; `chronicle check` lists the problems\n", path)
				os.Exit(ExitFailure)
			}
		}
	}()
})
