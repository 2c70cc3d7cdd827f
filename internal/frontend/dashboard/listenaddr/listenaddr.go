// Package listenaddr holds the dashboard's rules on addresses: where agentlock
// serve may listen (Check) and which Host names are this machine's
// loopback (Loopback). It links package net alone, not net/http: agentlock
// checks --addr before it hands serve over to the program that serves the
// page (workspace.MCPProgram), and agentlock, which every lock call and
// hook starts, links no HTTP server (docs/speed.md).
package listenaddr

import (
	"fmt"
	"net"
	"strings"
)

// Loopback reports whether host, a host name with or without a port (a
// Host header), names this machine's loopback interface.
func Loopback(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Check refuses to listen on an address that is not loopback without a
// token: the page shows who works on what and releases locks. A malformed
// address, or a port that is no port number, is refused too.
func Check(addr, token string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", addr, err)
	}
	// A port that is no number from 0 to 65535 (nor a service name the
	// system knows) is the user's typo, not a failure to listen.
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("--addr %s: the port %q is not a port number (0 to 65535; 0 picks a free one)", addr, port)
	}
	if token == "" && !Loopback(host) {
		return fmt.Errorf("--addr %s is not a loopback address: anyone who can reach it could read the registry and release locks; give --token too", addr)
	}
	return nil
}
