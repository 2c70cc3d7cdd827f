package filestore

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"

	"github.com/agentlock/agentlock/internal/store"
)

var _ store.Watcher = (*Locks)(nil)

// Watch implements store.Watcher with the operating system's file
// notifications (inotify, kqueue, ...) on the lock folders of keys: a write
// to one of their lock files — a release, a renewal, a takeover — is a
// change. Lock files are written in place and never renamed, so a watch on
// the folder sees every change, including the creation of a lock file
// that did not exist yet. Only a change that leaves a lock file empty (a
// release) or gone is reported: a write of a new owner (another waiter
// winning) or a renewal cannot free the lock, and waking every waiter for
// it would double the work of a contended lock; a lock that expires
// without a write is the waiter's timer's business.
func (s *Locks) Watch(keys []store.Key) (<-chan struct{}, func(), error) {
	names := map[string]bool{}
	dirs := map[string]bool{}
	for _, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return nil, nil, err
		}
		names[ref] = true
		dirs[filepath.Dir(ref)] = true
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, nil, fmt.Errorf("watch locks: %w", err)
	}
	for dir := range dirs {
		if err := w.Add(dir); err != nil {
			w.Close()
			return nil, nil, fmt.Errorf("watch locks: %w", err)
		}
	}
	changes := make(chan struct{}, 1)
	notify := func() {
		select {
		case changes <- struct{}{}:
		default: // one pending notification is enough
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if names[filepath.Clean(ev.Name)] && mayBeFree(ev.Name) {
					notify()
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				notify() // events may have been lost: look again
			}
		}
	}()
	stop := func() {
		w.Close()
		<-done
	}
	return changes, stop, nil
}

// mayBeFree reports whether the lock file name may now hold a free lock:
// it is empty, or its status cannot be read.
func mayBeFree(name string) bool {
	fi, err := os.Lstat(name)
	return err != nil || fi.Size() == 0
}
