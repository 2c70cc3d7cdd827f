package filestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/agentlock/agentlock/internal/sys/flock"
	"github.com/agentlock/agentlock/store"
)

var _ store.Watcher = (*Locks)(nil)

// Watch implements store.Watcher. Waiters for one lock queue up: each
// takes, blocking in the kernel, an exclusive flock on the lock's queue
// file (the lock file's name plus ".wait", empty, never written), and only
// the first in line — the one holding it — watches the lock folder (see
// watchFolders) and is woken by a release. When it wins or gives up, its
// process drops the queue's flock, and the kernel hands it to the next.
// Without the queue every waiter woke at every release and every write of
// the folder, and with 16 processes on one path the wake-ups cost more
// than the wins. The queue only spares wake-ups: the waiters behind the
// first still retry on their own timers, so a waiter stopped at the head
// of the line (SIGSTOP) slows the others down to their timers, never
// stops them. A wait for several locks, or one whose queue file cannot be
// used, watches the folders directly. The watch stops when ctx is done
// too.
func (s *Locks) Watch(ctx context.Context, keys []store.Key) (<-chan struct{}, func(), error) {
	changes, stop, err := s.watch(keys)
	if err != nil {
		return nil, nil, err
	}
	unhook := context.AfterFunc(ctx, stop)
	return changes, func() { unhook(); stop() }, nil
}

// queueExt ends the name of a lock's queue file.
const queueExt = ".wait"

// watch is Watch without a context.
func (s *Locks) watch(keys []store.Key) (<-chan struct{}, func(), error) {
	changes := make(chan struct{}, 1)
	queue, queueName := -1, ""
	if len(keys) == 1 {
		ref, err := s.ref(keys[0])
		if err != nil {
			return nil, nil, err
		}
		queue, queueName = openQueue(ref), ref+queueExt
	}
	first := queue < 0
	if !first {
		var err error
		if first, err = flock.TryLock(queue, queueName, flock.Exclusive); err != nil {
			// A queue file that cannot be locked cannot be used.
			closeQueue(queue)
			queue, first = -1, true
		}
	}
	if first {
		// Nobody ahead (or no queue): watch at once, before the caller's
		// next attempt, as a waiter alone always did.
		stop, err := s.watchFolders(keys, changes)
		if err != nil {
			closeQueue(queue)
			return nil, nil, err
		}
		return changes, sync.OnceFunc(func() { stop(); closeQueue(queue) }), nil
	}
	var mu sync.Mutex
	stopped := false
	var stopWatch func()
	go func() {
		err := flock.LockBlocking(queue, queueName, flock.Exclusive)
		mu.Lock()
		defer mu.Unlock()
		if err == nil && !stopped {
			stopWatch, err = s.watchFolders(keys, changes)
		}
		if err != nil || stopped {
			closeQueue(queue)
			return // the waiter's timer retries
		}
		// First in line now: the lock may have been released while this
		// process queued, unwatched.
		notifyOnce(changes)
	}()
	stop := sync.OnceFunc(func() {
		mu.Lock()
		stopped = true
		f := stopWatch
		mu.Unlock()
		// A goroutine still queued closes the queue file itself when its
		// turn comes; a process that exits drops it at once.
		if f != nil {
			f()
			closeQueue(queue)
		}
	})
	return changes, stop, nil
}

// notifyOnce sends a change on changes unless one is already pending: one
// pending notification is enough.
func notifyOnce(changes chan struct{}) {
	select {
	case changes <- struct{}{}:
	default:
	}
}

// watchFolders sends a change on changes for the changes of the lock files
// of keys, seen with the operating system's file
// notifications (inotify, kqueue, ...) on the lock folders of keys: a write
// to one of their lock files — a release, a renewal, a takeover — is a
// change. Lock files are written in place and never renamed, so a watch on
// the folder sees every change, including the creation of a lock file
// that did not exist yet. Only a change that leaves a lock file empty (a
// release) or gone is reported: a write of a new owner (another waiter
// winning) or a renewal cannot free the lock, and waking every waiter for
// it would double the work of a contended lock; a lock that expires
// without a write is the waiter's timer's business. The returned function
// stops the watch.
func (s *Locks) watchFolders(keys []store.Key, changes chan struct{}) (func(), error) {
	names := map[string]bool{}
	dirs := map[string]bool{}
	for _, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return nil, err
		}
		names[ref] = true
		dirs[filepath.Dir(ref)] = true
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch locks: %w", err)
	}
	for dir := range dirs {
		if err := w.Add(dir); err != nil {
			w.Close()
			return nil, fmt.Errorf("watch locks: %w", err)
		}
	}
	notify := func() { notifyOnce(changes) }
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
	return stop, nil
}

// mayBeFree reports whether the lock file name may now hold a free lock:
// it is empty, or its status cannot be read.
func mayBeFree(name string) bool {
	fi, err := os.Lstat(name)
	return err != nil || fi.Size() == 0
}
