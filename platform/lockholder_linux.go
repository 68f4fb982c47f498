package platform

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// LockHolder names the process holding the lock of the file at path, from
// /proc/locks. It is best effort: "" when it cannot tell.
func LockHolder(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return ""
	}
	defer f.Close()
	// Lines look like: "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF".
	suffix := ":" + strconv.FormatUint(sys.Ino, 10)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" {
			continue
		}
		if strings.HasSuffix(fields[5], suffix) && fields[4] != strconv.Itoa(os.Getpid()) {
			return fmt.Sprintf("process %s", fields[4])
		}
	}
	return ""
}
