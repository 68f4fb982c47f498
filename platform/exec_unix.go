//go:build unix

package platform

import "syscall"

// Replace runs the executable at path in place of this process, with
// argv and env: on success it does not return, and the process (its ID,
// terminal, signals, exit code) is the new program's.
func Replace(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
