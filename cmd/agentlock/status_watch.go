package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// watchRedraw is how often status --watch reads the locks again when
// nothing was written: ages grow and locks go stale without any write.
const watchRedraw = 2 * time.Second

// clearScreen moves the cursor home and clears the terminal.
const clearScreen = "\x1b[H\x1b[2J"

// statusWatch draws the status table, and draws it again whenever it
// changes, until SIGINT or SIGTERM.
func statusWatch(ctx context.Context, opts *StatusOptions, svc *session.Service) error {
	cmdutil.KeepCollecting()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The store's change feed; without one (a cluster that does not
	// answer) the redraw timer alone.
	changes, _ := svc.Changes(ctx)
	redraw := time.NewTicker(watchRedraw)
	defer redraw.Stop()
	var last []byte
	for {
		frame, err := watchFrame(ctx, svc, opts.All)
		if err != nil {
			return err
		}
		if !bytes.Equal(frame, last) {
			if _, err := opts.IO.Out.Write(append([]byte(clearScreen), frame...)); err != nil {
				return fmt.Errorf("write output: %w", err)
			}
			last = frame
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changes:
		case <-redraw.C:
		}
	}
}

// watchFrame renders one screen: a heading line, then status's table,
// every line within report.TableWidth columns, orphaned locks and stale
// views marked.
func watchFrame(ctx context.Context, svc *session.Service, all bool) ([]byte, error) {
	l, err := svc.Status(ctx, session.StatusRequest{All: all, Orphans: true, StaleViews: true})
	if err != nil {
		return nil, err
	}
	records := report.Statuses(l.States, l.Problems, all)
	// No warning on every frame when the registry cannot be read.
	_ = report.MarkOrphans(records, l.States, func() (func(core.State) bool, error) { return l.Orphaned, l.OwnersErr })
	report.MarkStaleViews(records, l.StaleViews)
	return report.WatchFrame(records, l.Workspace.LockDir, l.Workspace.Project)
}
