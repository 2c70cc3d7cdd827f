package filestore

import (
	"context"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentlock/agentlock/store"
)

// settle is how long a burst of file-system events is let run before the
// feed sends: one acquire writes a lock file and the registry.
const settle = 30 * time.Millisecond

// DefaultPoll is how often a Feed sends when it cannot watch its folders.
const DefaultPoll = time.Second

// Feed is the change feed (store.Feed) of lock files and a registry kept
// in folders on this machine: a value after anything changes in Dirs —
// the lock folder and the registry's folder — seen with the operating
// system's file notifications (fsnotify: inotify, kqueue...). When a
// folder cannot be watched (one that does not exist yet, an exhausted
// inotify limit) it sends every Poll instead. A lock that expires without
// a write changes no file: the reader's own timer covers it.
type Feed struct {
	Dirs []string
	// Poll is how often the feed sends when it cannot watch Dirs
	// (DefaultPoll when zero).
	Poll time.Duration
}

var _ store.Feed = (*Feed)(nil)

// Changes implements store.Feed. It never fails: a feed that cannot watch
// polls.
func (f *Feed) Changes(ctx context.Context) (<-chan struct{}, error) {
	poll := f.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	changes, _ := watchDirs(ctx, f.Dirs, poll)
	return changes, nil
}

// watchDirs sends on the returned channel (buffered, so that changes
// coalesce) after anything changes in dirs, until ctx is done, polling
// every poll when they cannot be watched. fsnotifying reports whether it
// watches: false means polling only.
func watchDirs(ctx context.Context, dirs []string, poll time.Duration) (changes <-chan struct{}, fsnotifying bool) {
	out := make(chan struct{}, 1)
	send := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	w, err := fsnotify.NewWatcher()
	if err == nil {
		for _, d := range dirs {
			if _, statErr := os.Stat(d); statErr != nil {
				err = statErr
				break
			}
			if err = w.Add(d); err != nil {
				break
			}
		}
		if err != nil {
			w.Close()
			w = nil
		}
	}
	go func() {
		var events <-chan fsnotify.Event
		var errs <-chan error
		if w != nil {
			defer w.Close()
			events, errs = w.Events, w.Errors
		}
		ticker := time.NewTicker(poll)
		defer ticker.Stop()
		var settling <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				if settling == nil {
					settling = time.After(settle)
				}
			case _, ok := <-errs:
				if !ok {
					errs = nil
				}
				// An overflow lost events: read everything again.
				send()
			case <-settling:
				settling = nil
				send()
			case <-ticker.C:
				if w == nil {
					send()
				}
			}
		}
	}()
	return out, w != nil
}
