package dashboard

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"runtime"
	"syscall"
)

// Listen listens on addr (host:port, see CheckAddr) for Serve; a port
// another program holds is said so, with what to do.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("cannot serve on %s: the port is taken by another program (another agentlock serve?); choose another with --addr host:port", addr)
		}
		return nil, fmt.Errorf("cannot serve on %s: %w", addr, err)
	}
	return ln, nil
}

// PageURL is the address of the page to open for a listener's address:
// localhost for an unspecified host (0.0.0.0, ::), with the token.
func PageURL(addr, token string) string {
	u := url.URL{Scheme: "http", Host: addr, Path: "/"}
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
			u.Host = net.JoinHostPort("localhost", port)
		}
	}
	if token != "" {
		u.RawQuery = url.Values{"token": {token}}.Encode()
	}
	return u.String()
}

// OpenBrowser opens link in the desktop's browser (open on macOS,
// xdg-open elsewhere), without waiting for it.
func OpenBrowser(link string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", link)
	default:
		cmd = exec.Command("xdg-open", link)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", cmd.Path, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
