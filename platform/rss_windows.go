package platform

import "os"

// ChildMaxRSS: Windows keeps no peak resident set of a finished process
// in its ProcessState (it would take the process handle's memory
// counters before the wait), so ok is false and the benchmarks print no
// figure.
func ChildMaxRSS(ps *os.ProcessState) (kib int64, ok bool) { return 0, false }
