package dashboard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/agentlock/agentlock/report"
)

// ListenAndServe serves the dashboard on addr (Listen) until ctx is done,
// saying on log where (the page's URL, with token) and when it stopped;
// with open, it opens the page in the desktop's browser too.
func (s *Server) ListenAndServe(ctx context.Context, addr, token string, open bool, log io.Writer) error {
	ln, err := Listen(addr)
	if err != nil {
		return err
	}
	link := PageURL(ln.Addr().String(), token)
	fmt.Fprintf(log, "agentlock: serving the dashboard of %s at %s (Ctrl-C stops it)\n", report.Escape(s.opts.Workspace.Project), link)
	if open {
		if err := OpenBrowser(link); err != nil {
			fmt.Fprintf(log, "agentlock: warning: could not open a browser: %v\n", err)
		}
	}
	if err := s.Serve(ctx, ln); err != nil {
		return err
	}
	fmt.Fprintln(log, "agentlock: dashboard stopped")
	return nil
}

// Listen listens on addr (host:port, see listenaddr.Check) for Serve; a port
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
