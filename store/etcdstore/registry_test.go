//go:build etcd

package etcdstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/etcdstore"
	"github.com/agentlock/agentlock/store/filestore"
)

// conflictCounting is a gRPC option that counts the conditional writes
// that found a key changed since their read (a compare-and-swap retried).
func conflictCounting(n *atomic.Int64) grpc.DialOption {
	return grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if txn, ok := req.(*etcdserverpb.TxnRequest); ok && err == nil && len(txn.Compare) > 0 {
			if resp, ok := reply.(*etcdserverpb.TxnResponse); ok && !resp.Succeeded {
				n.Add(1)
			}
		}
		return err
	})
}

var fixedNow = func() time.Time { return time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC) }

func registryOn(conn *etcdstore.Conn, local string) (*etcdstore.Document, *core.Registry) {
	doc := &etcdstore.Document{Conn: conn, Repo: "example.com/org/registry", Local: local}
	return doc, core.NewRegistry(doc, core.RegistryOptions{Now: fixedNow, Protocol: func() (string, error) { return "<!-- PROTOCOL -->", nil }})
}

// 16 sessions registering and then holding different files at once write
// 16 different keys: no write finds its key changed, none is retried
// (issue 23: the registry was one compare-and-swap key, and 16 sessions
// locking different files waited 1.4 s on average per acquire).
func TestRegistrySessionsDoNotConflict(t *testing.T) {
	c := etcdtest.Start(t, 1)
	var conflicts atomic.Int64
	const sessions = 16
	dir := t.TempDir()
	regs := make([]*core.Registry, sessions)
	for i := range regs {
		conn := connWith(t, c, conflictCounting(&conflicts))
		_, regs[i] = registryOn(conn, filepath.Join(dir, fmt.Sprintf("m%d", i), "registry.md"))
	}
	if _, err := regs[0].Create(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, step := range []func(i int) error{
		func(i int) error {
			_, err := regs[i].Register(t.Context(), core.Session{SessionID: fmt.Sprintf("s%d", i), Provider: "test"})
			return err
		},
		func(i int) error {
			_, err := regs[i].HoldPaths(t.Context(), fmt.Sprintf("s%d", i), fmt.Sprintf("/repo/f%d.go", i))
			return err
		},
	} {
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, sessions)
		for i := range sessions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs <- step(i)
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := conflicts.Load(); n != 0 {
		t.Fatalf("%d sessions registering and holding different files: %d writes found their key changed and were retried, want 0", sessions, n)
	}
	doc, err := regs[0].Load(t.Context())
	if err != nil || len(doc.Agents) != sessions {
		t.Fatalf("after: %d sessions, %v", len(doc.Agents), err)
	}
	for _, s := range doc.Agents {
		if len(s.DoNotTouch) != 1 {
			t.Fatalf("session %s holds %v", s.SessionID, s.DoNotTouch)
		}
	}
}

// The registry.md written on etcd is the one the lock files write, byte
// for byte, for the same edits: readers see no difference.
func TestRegistryCopyIsTheFileFormat(t *testing.T) {
	conn := startConn(t)
	dir := t.TempDir()
	_, onEtcd := registryOn(conn, filepath.Join(dir, "etcd", "registry.md"))
	files := core.NewRegistry(&filestore.Document{Path: filepath.Join(dir, "files", "registry.md")},
		core.RegistryOptions{Now: fixedNow, Protocol: func() (string, error) { return "<!-- PROTOCOL -->", nil }})
	for _, r := range []*core.Registry{onEtcd, files} {
		for _, id := range []string{"zed", "alice", "bob"} {
			if _, err := r.Register(t.Context(), core.Session{SessionID: id, Provider: "test", WorkingOn: "x: y, \"z\""}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := r.HoldPaths(t.Context(), "alice", "/repo/a.go", "/repo/src/"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Finish(t.Context(), "bob"); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(filepath.Join(dir, "files", "registry.md"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "etcd", "registry.md"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("registry.md on etcd:\n%s\nwith lock files:\n%s", got, want)
	}
}

// A registry kept whole under one key by an older version is read, and
// split into keys by the first write, nothing lost; so is the local
// registry.md of a project moving to etcd, past the size one key can hold
// (issue 23: past ~4,300 sessions, writes failed "request is too large").
func TestRegistryMovesFromOneKeyAndHasNoSizeLimit(t *testing.T) {
	conn := startConn(t)
	cli, err := conn.Client()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	doc, r := registryOn(conn, filepath.Join(dir, "registry.md"))
	legacy := "---\nversion: \"1.0\"\nlast_updated: \"2026-01-01T00:00:00Z\"\nagents:\n  - session_id: old-1\n    provider: test\n    status: working\n  - session_id: old-2\n    provider: test\n    status: working\n---\n\nold\n"
	if _, err := cli.Put(context.Background(), doc.Key(), legacy); err != nil {
		t.Fatal(err)
	}
	got, err := r.Load(t.Context())
	if err != nil || len(got.Agents) != 2 {
		t.Fatalf("the one-key registry: %+v %v", got.Agents, err)
	}
	if _, err := r.Register(t.Context(), core.Session{SessionID: "new", Provider: "test"}); err != nil {
		t.Fatal(err)
	}
	if got, err = r.Load(t.Context()); err != nil || len(got.Agents) != 3 || got.Agents[0].SessionID != "old-1" || got.Agents[2].SessionID != "new" {
		t.Fatalf("after the first write: %+v %v", got.Agents, err)
	}
	if resp, err := cli.Get(context.Background(), doc.Key()); err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("the one key after the split: %v %v", resp, err)
	}

	// A project moving to etcd with 5,000 sessions in its registry.md:
	// 1.9 MB, more than etcd takes in one request.
	const many = 5000
	var b strings.Builder
	b.WriteString("---\nversion: \"1.0\"\nlast_updated: \"2026-01-01T00:00:00Z\"\nagents:\n")
	for i := range many {
		fmt.Fprintf(&b, "  - session_id: s%04d\n    provider: test\n    working_on: \"%s\"\n    status: finished\n    do_not_touch: [\"/repo/src/module%04d/file.go\"]\n", i, strings.Repeat("w", 300), i)
	}
	b.WriteString("---\n")
	if b.Len() < 3<<19 {
		t.Fatalf("the registry is only %d bytes", b.Len())
	}
	big := filepath.Join(dir, "big", "registry.md")
	if err := os.MkdirAll(filepath.Dir(big), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	bigDoc := &etcdstore.Document{Conn: conn, Repo: "example.com/org/big", Local: big}
	rb := core.NewRegistry(bigDoc, core.RegistryOptions{Now: fixedNow})
	if _, err := rb.Register(t.Context(), core.Session{SessionID: "one-more", Provider: "test"}); err != nil {
		t.Fatalf("a write past %d sessions: %v", many, err)
	}
	if _, err := rb.HoldPaths(t.Context(), "s4999", "/repo/x.go"); err != nil {
		t.Fatalf("a second write: %v", err)
	}
	got, err = rb.Load(t.Context())
	if err != nil || len(got.Agents) != many+1 {
		t.Fatalf("after: %d sessions, %v", len(got.Agents), err)
	}
	if s, _ := got.Find("s4999"); len(s.DoNotTouch) != 2 {
		t.Fatalf("s4999 holds %v", s.DoNotTouch)
	}
	copied, err := os.ReadFile(big)
	if err != nil || !strings.Contains(string(copied), "one-more") || strings.Count(string(copied), "session_id:") != many+1 {
		t.Fatalf("the local copy: %d sessions, %v", strings.Count(string(copied), "session_id:"), err)
	}
}

// doctor's store-registry check says how the registry is kept, and warns
// when an older build wrote the one key again after the split.
func TestRegistryFormatIsDiagnosed(t *testing.T) {
	conn := startConn(t)
	doc, r := registryOn(conn, filepath.Join(t.TempDir(), "registry.md"))
	st := &etcdstore.Locks{Conn: conn, Repo: doc.Repo, Root: t.TempDir(), Timeout: 30 * time.Second}
	check := func() store.Diagnosis {
		for _, d := range st.Diagnose(t.Context()) {
			if d.Name == "store-registry" {
				return d
			}
		}
		t.Fatal("no store-registry check")
		return store.Diagnosis{}
	}
	if d := check(); d.Warn || d.Problem || !strings.Contains(d.Detail, "no registry") {
		t.Fatalf("before any write: %+v", d)
	}
	if _, err := r.Register(t.Context(), core.Session{SessionID: "a", Provider: "test"}); err != nil {
		t.Fatal(err)
	}
	if d := check(); d.Warn || !strings.Contains(d.Detail, "one key per session (1") {
		t.Fatalf("after a write: %+v", d)
	}
	cli, err := conn.Client()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Put(t.Context(), doc.Key(), "---\nagents: []\n---\n"); err != nil {
		t.Fatal(err)
	}
	if d := check(); !d.Warn || !strings.Contains(d.Fix, "upgrade") {
		t.Fatalf("with an older build's key written again: %+v", d)
	}
}
