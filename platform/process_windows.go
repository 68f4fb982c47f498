package platform

import (
	"errors"
	"syscall"
)

// stillActive is GetExitCodeProcess's code for a process that runs.
const stillActive = 259

// ProcessAlive reports whether process pid still runs: a handle to it
// opens (access denied means it exists under another user) and it has no
// exit code yet.
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	const queryLimitedInformation = 0x1000 // PROCESS_QUERY_LIMITED_INFORMATION
	h, err := syscall.OpenProcess(queryLimitedInformation, false, uint32(pid))
	if err != nil {
		return errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true // it exists; what it is doing is unknown
	}
	return code == stillActive
}
