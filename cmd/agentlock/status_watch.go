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
	"github.com/agentlock/agentlock/workspace"
)

// watchRedraw is how often status --watch reads the locks again when
// nothing was written: ages grow and locks go stale without any write.
const watchRedraw = 2 * time.Second

// clearScreen moves the cursor home and clears the terminal.
const clearScreen = "\x1b[H\x1b[2J"

// statusWatch draws the status table, and draws it again whenever it
// changes, until SIGINT or SIGTERM.
func statusWatch(ctx context.Context, opts *StatusOptions, ws *workspace.Workspace) error {
	cmdutil.KeepCollecting()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The store's change feed; without one (a cluster that does not
	// answer) the redraw timer alone.
	changes, _ := ws.Changes(ctx)
	redraw := time.NewTicker(watchRedraw)
	defer redraw.Stop()
	locker := ws.Locker()
	var last []byte
	for {
		frame, err := watchFrame(ctx, locker, ws, opts.All)
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
// every line within report.TableWidth columns, orphaned locks marked.
func watchFrame(ctx context.Context, locker *core.Locker, ws *workspace.Workspace, all bool) ([]byte, error) {
	states, problems, err := locker.List(ctx)
	if err != nil {
		return nil, err
	}
	records := report.Statuses(states, problems, all)
	markOrphans(ctx, nil, ws, states, records) // no warning on every frame
	return report.WatchFrame(records, ws.LockDir, ws.Project)
}
