//go:build etcd

package etcdstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
)

// A session's leases are remembered on the machine that uses them, so that
// renewing the session is one keep-alive request and no read: one file per
// (repository, session) under Locks.Memory, a line "<ttl> <lease id>" per
// lease its processes granted or found in the cluster.
//
// The memory must never miss a live lease of the session (its locks would
// not be renewed and would expire under a working agent), while a dead
// lease in it costs nothing but a keep-alive answered "not found". So:
//
//   - a lease is added before the transaction that attaches locks to it
//     is written, together with every lease of the session the cluster
//     showed in the same read (an older build's, or one this machine
//     forgot);
//   - only leases the cluster said are gone are dropped;
//   - a missing file is no memory at all: renewing then reads the
//     session's leases from the cluster, and remembers them;
//   - every change holds the repository's memory lock (flock on a file
//     never deleted), so that an addition is never lost to a rewrite.

// lease is one remembered lease: its length in seconds and its id.
type lease struct {
	ttl int64
	id  clientv3.LeaseID
}

// memoryDir is the folder of the repository's remembered leases; "" when
// the store has no memory.
func (s *Locks) memoryDir() string {
	if s.Memory == "" {
		return ""
	}
	return filepath.Join(s.Memory, escape(s.Repo))
}

// memoryFile is the file of session's remembered leases; "" without memory.
func (s *Locks) memoryFile(session string) string {
	dir := s.memoryDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, escape(session))
}

// recall returns the leases remembered for session, and when the renewal
// was last published (the file's modification time); ok is false when
// nothing is remembered, so that the caller asks the cluster.
func (s *Locks) recall(session string) (leases []lease, published time.Time, ok bool) {
	path := s.memoryFile(session)
	if path == "" {
		return nil, time.Time{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, false
	}
	if fi, err := os.Stat(path); err == nil {
		published = fi.ModTime()
	}
	return parseLeases(data), published, true
}

func parseLeases(data []byte) []lease {
	var out []lease
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		ttl, id, ok := strings.Cut(sc.Text(), " ")
		t, err1 := strconv.ParseInt(ttl, 10, 64)
		n, err2 := strconv.ParseInt(id, 16, 64)
		if !ok || err1 != nil || err2 != nil || n == 0 {
			continue // a line cut short by a crash: the lease is in the cluster still
		}
		if l := (lease{t, clientv3.LeaseID(n)}); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// remember adds leases to session's memory (those it does not hold yet).
func (s *Locks) remember(ctx context.Context, session string, leases []lease) error {
	path := s.memoryFile(session)
	if path == "" || len(leases) == 0 {
		return nil
	}
	return s.withMemoryLock(ctx, func() error {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		known := parseLeases(data)
		var b strings.Builder
		for _, l := range leases {
			if !slices.Contains(known, l) {
				fmt.Fprintf(&b, "%d %x\n", l.ttl, int64(l.id))
				known = append(known, l)
			}
		}
		if b.Len() == 0 {
			return nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		_, err = f.WriteString(b.String())
		return errors.Join(err, f.Close())
	})
}

// forget drops from session's memory the leases the cluster said are gone.
func (s *Locks) forget(ctx context.Context, session string, dead []clientv3.LeaseID) error {
	path := s.memoryFile(session)
	if path == "" || len(dead) == 0 {
		return nil
	}
	return s.withMemoryLock(ctx, func() error {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, l := range parseLeases(data) {
			if !slices.Contains(dead, l.id) {
				fmt.Fprintf(&b, "%d %x\n", l.ttl, int64(l.id))
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(path, []byte(b.String()), 0o600); err != nil {
			return err
		}
		// The modification time says when the renewal was last published.
		return os.Chtimes(path, fi.ModTime(), fi.ModTime())
	})
}

// published marks session's renewal as published now.
func (s *Locks) published(session string, at time.Time) {
	if path := s.memoryFile(session); path != "" {
		_ = os.Chtimes(path, at, at)
	}
}

// withMemoryLock runs f holding the repository's memory lock, waited for
// boundedly and no longer than ctx lasts.
func (s *Locks) withMemoryLock(ctx context.Context, f func() error) error {
	dir := s.memoryDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("remember the session's leases: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(dir, ".lock"))
	if err != nil {
		return fmt.Errorf("remember the session's leases: %w", err)
	}
	defer unlock()
	if err := f(); err != nil {
		return fmt.Errorf("remember the session's leases in %s: %w", dir, err)
	}
	return nil
}
