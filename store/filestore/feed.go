package filestore

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// settle is how long a burst of file-system events is let run before the
// feed sends: one acquire writes a lock file and the registry.
const settle = 30 * time.Millisecond

// DefaultPoll is how often the feed sends when it cannot watch its
// folders.
const DefaultPoll = time.Second

// Changes implements store.Feed: a value after anything changes in the
// lock folder (ScanDir) and the folder of Document — a lock file written, the
// registry replaced — seen with the operating system's file notifications
// (fsnotify: inotify, kqueue...). When a folder cannot be watched (one
// that does not exist yet, an exhausted inotify limit) it sends every
// DefaultPoll instead. It never fails: a feed that cannot watch polls.
func (s *Locks) Changes(ctx context.Context) (<-chan struct{}, error) {
	dirs := []string{s.ScanDir}
	if s.Document != "" {
		dirs = append(dirs, filepath.Dir(s.Document))
	}
	changes, _ := watchDirs(ctx, dirs, DefaultPoll)
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
