//go:build windows

package platform

import "errors"

// Replace reports errors.ErrUnsupported: Windows has no exec; callers run
// the program as a child instead.
func Replace(path string, argv, env []string) error {
	return errors.ErrUnsupported
}
