//go:build !linux

package platform

// LockHolder cannot tell who holds a lock here (no /proc/locks; flock
// and LockFileEx name no owner): "", and the error says "another
// process".
func LockHolder(path string) string { return "" }
