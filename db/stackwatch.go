package db

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The stack watch. A damaged archive whose branch page points to itself
// (or to an ancestor) sends bbolt's page search into endless recursion.
// That is no panic Guard can recover: the runtime ends the process when
// the stack reaches its limit, a fatal error, with hundreds of lines of
// goroutine dumps and exit 2 (the CLI's code of a usage error). Go cannot
// stop a goroutine from outside, nor catch that fatal error; so once a
// runaway recursion is seen, the process ends either way, and the watch
// only chooses how: with the one line of a damaged archive (PageLoop) and
// exit 1, as any damage. That is why ending the process is its last
// resort, taken only while a guarded call runs and only past stackAlarm;
// `chronicle check` walks the page trees from the file first and reports
// such a loop as a problem, without recursing.
//
// Chronicle itself never recurses deeper than a page tree (a few levels)
// or a claims row (32 levels), so its goroutine stacks stay far below a
// megabyte. The watch lowers the stack limit to maxStack (a tenth of a
// second of recursion instead of seconds and a gigabyte), and a watcher
// that samples the stack memory every stackPoll reports the archive and
// exits once it passes stackAlarm, before the limit is reached.
//
// The watch is the program's to start (WatchStack): the chronicle command
// and the MCP server own their process and start it; a library must not.
// The stack limit is the process's, and the memory the watcher samples is
// every goroutine's: in a program of its own that runs thousands of
// goroutines, or recurses deeply itself, the watch would end the program
// for stacks that are not Chronicle's. The Go API (package chronicle)
// therefore leaves it to its caller (chronicle.WatchStack); without it a
// looping page tree ends the program as the runtime ends any stack
// overflow.
//
// The first poll of a call waits firstPoll: each poll stops the world
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

// exitDamaged is the exit code of a damaged archive in the CLI's table
// (repl.ExitFailure), the code the watch ends the process with.
const exitDamaged = 1

// watchedArchive is the archive of the guarded call that started last
// (the one a runaway page search is in); running counts the guarded calls
// running, and wake starts the watcher's polling when one starts, so an
// idle REPL or MCP server is never woken.
var (
	watchedArchive atomic.Pointer[string]
	running        atomic.Int32
	wake           = make(chan struct{}, 1)
)

// watching marks a guarded call running on the archive at path until
// the returned function is called. Without WatchStack nobody reads it.
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

// WatchStack starts the stack watch for the rest of the process (once;
// later calls do nothing): it lowers the process's stack limit and, while
// a call guarded by Guard runs, ends the process with the archive's one
// line on stderr ("chronicle: archive … is damaged: a page tree loops …")
// and exit 1 when the stacks grow past what Chronicle ever uses. Only a
// program that owns its process should call it (see above).
var WatchStack = sync.OnceFunc(func() {
	debug.SetMaxStack(maxStack)
	go watchStack()
})

func watchStack() {
	// runtime.ReadMemStats, not runtime/metrics: importing that package
	// costs every command a tenth of a millisecond at start-up (it builds
	// its table of metric names), more than a stop of the world every
	// stackPoll costs a command that runs that long.
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
			// watching stores the path before it counts the call
			loop := &DamageError{Kind: PageLoop, Path: printable(*watchedArchive.Load())}
			fmt.Fprintf(os.Stderr, "chronicle: %v\n", loop)
			os.Exit(exitDamaged)
		}
	}
}

// printable escapes the control characters of s as \xNN, as the CLI
// escapes what it prints: the line goes to the user's terminal straight
// from here.
func printable(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isControl(r) {
			fmt.Fprintf(&b, `\x%02x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }
