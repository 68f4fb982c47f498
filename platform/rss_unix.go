//go:build unix

package platform

import (
	"os"
	"runtime"
	"syscall"
)

// ChildMaxRSS is the peak resident set of a finished child in KiB, from
// its rusage (which Darwin gives in bytes, the others in KiB); ok is
// false when the platform keeps none.
func ChildMaxRSS(ps *os.ProcessState) (kib int64, ok bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) >> 10, true
	}
	return int64(ru.Maxrss), true
}
