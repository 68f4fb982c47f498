package climain

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/casper-chronicle/chronicle/db/fileio"
)

// MemstatsEnv names the file CHRONICLE_MEMSTATS asks the process to write
// its memory figures to at exit (see doc.go).
const MemstatsEnv = "CHRONICLE_MEMSTATS"

// memSampleEvery is how often the sampler reads the runtime's figures: a
// runtime.ReadMemStats stops the world for a few microseconds, so this is
// well under 1 % of one core, while a heap peak lasts until the next GC
// cycle ends, many milliseconds for the heaps that matter. (runtime/metrics
// reads without stopping the world, but importing it costs every command
// a tenth of a millisecond at start-up; the sampler runs only for
// CHRONICLE_MEMSTATS.)
const memSampleEvery = time.Millisecond

// memSampler keeps the highest Go heap and Go memory figures seen by a
// background goroutine, for CHRONICLE_MEMSTATS.
type memSampler struct {
	mu       sync.Mutex
	ms       runtime.MemStats
	heapPeak uint64 // HeapAlloc: live and not yet swept objects
	goPeak   uint64 // Sys minus HeapReleased: what the runtime holds from the OS
	stop     chan struct{}
	done     chan struct{}
}

func startMemSampler() *memSampler {
	m := &memSampler{
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	m.sample()
	go func() {
		defer close(m.done)
		t := time.NewTicker(memSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memSampler) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	runtime.ReadMemStats(&m.ms)
	heap := m.ms.HeapAlloc
	held := m.ms.Sys - m.ms.HeapReleased
	m.heapPeak, m.goPeak = max(m.heapPeak, heap), max(m.goPeak, held)
}

// write stops the sampler and writes one line of key=value figures to
// path: the peak Go heap and Go memory sampled, the process's peak
// resident set (VmHWM: its own pages since exec, the mapped binary and
// archive included) and the number of GC cycles.
func (m *memSampler) write(path string) error {
	close(m.stop)
	<-m.done
	m.sample() // the sampler has stopped: m.ms is this last reading
	line := fmt.Sprintf("heap_peak_bytes=%d go_peak_bytes=%d rss_peak_bytes=%d gc_cycles=%d\n",
		m.heapPeak, m.goPeak, vmHWM(), m.ms.NumGC)
	// Only a regular file, as for every file Chronicle writes: a FIFO
	// there would block the exit.
	if err := fileio.CheckTarget(path); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(line), 0o600)
}

// vmHWM reads the peak resident set of this process from /proc/self/status
// (0 where there is none). Unlike the ru_maxrss a parent gets from wait4,
// it does not count the pages of the parent that started the process.
func vmHWM() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kib, _ := strconv.ParseUint(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return kib << 10
		}
	}
	return 0
}
