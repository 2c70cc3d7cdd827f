//go:build etcd

package etcdtest

import (
	"net"
	"testing"
)

// A port taken between its pick and etcd's bind (here: taken before, and
// picked first) costs a retry on new ports, never a failure or a skip.
func TestStartRetriesAPortTakenMeanwhile(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	picks := 0
	pick := func() (int, error) {
		picks++
		if picks == 1 {
			return taken.Addr().(*net.TCPAddr).Port, nil
		}
		return freePort()
	}
	c, err := startRetrying(t.TempDir(), 1, pick)
	if err != nil {
		t.Fatalf("the cluster did not start on new ports: %v", err)
	}
	defer c.Stop()
	if picks != 4 {
		t.Errorf("ports picked: %d, want 2 for the lost attempt and 2 for the next", picks)
	}
	if c.Members[0].ClientURL.Port() == "" || c.Members[0].ClientURL.Host == taken.Addr().String() {
		t.Errorf("the member serves on %s, the taken port", c.Members[0].ClientURL.Host)
	}
}
