package commands

import (
	"fmt"
	"net"
	"strings"
)

// ServeAddr is where `chronicle serve` listens without --addr: the
// loopback address, on a port the system picks.
const ServeAddr = "127.0.0.1:0"

// LoopbackHost reports whether host names this machine's loopback
// (localhost, 127.0.0.0/8, ::1).
func LoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckServeAddr refuses a listening address of `chronicle serve` that is
// not HOST:PORT on a loopback host: the server is for this machine only.
func CheckServeAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("wants HOST:PORT such as %s, got %q", ServeAddr, addr)
	}
	if !LoopbackHost(host) {
		return fmt.Errorf("wants a loopback host (127.0.0.1, localhost or ::1), got %q: the server answers this machine only", host)
	}
	return nil
}
