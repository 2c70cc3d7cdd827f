package dashboard

import (
	"context"
	"os"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/agentlock/agentlock/workspace"
)

// settle is how long a burst of file-system events is let run before the
// workspace is read again: one acquire writes a lock file and the registry.
const settle = 30 * time.Millisecond

// Changes tells of the changes of the workspace's locks: a store with a
// change feed (etcd) tells of every change, made on any machine; without
// one, or when it cannot be opened, dirs are watched (Watch, polling every
// poll when they cannot be). The dashboard and status --watch both use it.
func Changes(ctx context.Context, ws *workspace.Workspace, dirs []string, poll time.Duration) <-chan struct{} {
	changes, fed, err := ws.Changes(ctx)
	if !fed || err != nil {
		changes, _ = Watch(ctx, dirs, poll)
	}
	return changes
}

// Watch sends on the returned channel (buffered, so that changes coalesce)
// after anything changes in dirs — the lock folder and the registry's
// folder — until ctx is done. It uses fsnotify, and falls back to sending
// every poll when the folders cannot be watched (a folder that does not
// exist yet, an exhausted inotify limit). fsnotify reports whether it
// watches: false means polling only.
func Watch(ctx context.Context, dirs []string, poll time.Duration) (changes <-chan struct{}, fsnotifying bool) {
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
