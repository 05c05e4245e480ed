// Package loopback tells an address that names this machine only, for the servers that listen on
// loopback unless told otherwise (ctool mcp --http, ctool console) and check the Host of each request.
package loopback

import (
	"net"
	"net/netip"
	"strings"
)

// Is reports whether a host or host:port names this machine only: localhost or a loopback IP.
func Is(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
