package filestore

import (
	"fmt"
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
// that did not exist yet.
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
				if names[filepath.Clean(ev.Name)] {
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
