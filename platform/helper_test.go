//go:build !linux

package platform_test

func runHelper(string) int { return 2 }
