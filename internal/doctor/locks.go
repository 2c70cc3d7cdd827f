package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/store/filestore"
)

// legacy: agent-registry 0.2's default home holds no live lock this
// project's agents do not see. Agents of 0.2 keep their locks there
// whatever the project: a live one on a file of this project, while the
// project keeps its locks elsewhere, lets a 0.2 agent and an agentlock
// agent both hold the file.
func (d *run) legacy(ctx context.Context) Check {
	c := Check{Name: "agent-registry-0.2"}
	home, live, err := d.ws.LegacyLive(ctx)
	switch {
	case home == "":
		c.Status, c.Detail = OK, "no agent-registry 0.2 home beside this project's"
		return c
	case err != nil:
		c.Status, c.Detail = Warn, fmt.Sprintf("agent-registry 0.2's home %s cannot be read: %v", home, err)
		c.Fix = "make it readable, or remove it if no agent uses agent-registry 0.2"
		return c
	}
	var here []string
	for _, s := range live {
		if d.ws.Project != "" && s.Path != "" && integrations.Within(s.Path, d.ws.Project) {
			here = append(here, fmt.Sprintf("%s (%s)", s.Path, s.Owner))
		}
	}
	share := fmt.Sprintf("agentlock init --home %s (see docs/mixed-fleet.md)", home)
	switch {
	case len(here) > 0:
		c.Status = Problem
		c.Detail = fmt.Sprintf("agent-registry 0.2's home %s holds %d live lock(s) on this project's files that its agentlock agents do not see: %s",
			home, len(here), strings.Join(here, ", "))
		c.Fix = "make the project share that home: " + share
	case len(live) > 0:
		c.Status = Warn
		c.Detail = fmt.Sprintf("agent-registry 0.2's home %s holds %d live lock(s), none on this project's files; its agents do not see this project's locks", home, len(live))
		c.Fix = "if 0.2 agents work on this project, share the home: " + share
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("agent-registry 0.2's home %s holds no live lock", home)
	}
	return c
}

// lockFolder: every lock file reads (none corrupt, busy past the bound,
// linked or not a regular file), nothing foreign lies in the folder, and no
// lock is stamped in the future (clock).
func (d *run) lockFolder(ctx context.Context) []Check {
	if d.unusable != nil {
		return []Check{d.notChecked("lock-files", "the locks are kept"), d.notChecked("clock", "the lock stamps are kept")}
	}
	files := Check{Name: "lock-files"}
	clock := Check{Name: "clock"}
	states, problems, err := d.ws.Locker().List(ctx)
	if err != nil && d.ws.Store().Set() {
		files.Status, files.Detail = Problem, fmt.Sprintf("cannot list the locks in %s: %v", d.ws.Store().URL, err)
		files.Fix = "see the store checks: start the store or fix its settings; the locks are in the store, not in files here"
		clock.Status, clock.Detail = Warn, "no lock stamp could be read"
		return []Check{files, clock}
	}
	if err != nil {
		files.Status, files.Detail, files.Fix = Problem, fmt.Sprintf("cannot list the lock folder: %v", err), "make "+d.ws.LockDir+" a readable folder"
		clock.Status, clock.Detail = Warn, "no lock stamp could be read"
		return []Check{files, clock}
	}
	foreign := foreignEntries(d.ws.LockDir)
	switch {
	case len(problems) > 0:
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Error()
		}
		files.Status = Problem
		files.Detail = fmt.Sprintf("%d lock file(s) cannot be used: %s", len(problems), strings.Join(msgs, "; "))
		files.Fix = "agentlock status shows them; once their owners are gone, agentlock release --force PATH (or remove a file that is not a lock)"
		if len(foreign) > 0 {
			files.Detail += fmt.Sprintf("; and %d foreign entr(ies): %s", len(foreign), strings.Join(foreign, ", "))
		}
	case len(foreign) > 0:
		files.Status = Warn
		files.Detail = fmt.Sprintf("%d entr(ies) in %s are not agentlock's: %s", len(foreign), d.ws.LockDir, strings.Join(foreign, ", "))
		files.Fix = "move them out of the lock folder"
	default:
		held := 0
		for _, s := range states {
			if s.Locked() {
				held++
			}
		}
		files.Status, files.Detail = OK, fmt.Sprintf("%d lock file(s) in %s, all readable; %d held", len(states), d.ws.LockDir, held)
	}
	return []Check{files, d.clock(clock, states)}
}

// clock compares the newest lock stamp with now: a stamp further in the
// future than the skew means this machine's clock, or the clock of one that
// wrote the lock, is wrong — and locks then expire too early or too late.
func (d *run) clock(c Check, states []core.State) Check {
	now := d.opts.Settings.Now()
	var newest core.State
	for _, s := range states {
		if !s.Stamp.IsZero() && s.Stamp.After(newest.Stamp) {
			newest = s
		}
	}
	switch {
	case newest.Stamp.IsZero():
		c.Status, c.Detail = OK, "no lock stamp to compare with the clock"
	case newest.Stamp.Sub(now) > d.opts.Skew:
		c.Status = Problem
		c.Detail = fmt.Sprintf("the lock on %s (%s) is stamped %s in the future: a clock is wrong, this machine's or the one that wrote it",
			newest.Name(), newest.Owner, newest.Stamp.Sub(now).Round(time.Second))
		c.Fix = "set the clocks right (NTP); a stamp beyond the timeout in the future is treated as stale"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("the newest lock stamp is %s old", now.Sub(newest.Stamp).Round(time.Second))
	}
	return c
}

// foreignEntries lists what, in the lock folder, is not agentlock's: any
// entry but a regular *.lock file, a session's index file, a lock's queue
// file, the note beside a lock file, the list of areas and the atomic
// writer's temporary files
// (which the temporary-files check reports). Entries are judged by their
// type, without opening them: a FIFO must not hang the check.
func foreignEntries(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case atomicfile.IsTempName(name):
		case e.Type().IsRegular() && filepath.Ext(name) == ".lock":
		case e.Type().IsRegular() && filestore.IsIndexFileName(name):
			// A session's index of its lock files.
		case e.Type().IsRegular() && filestore.IsQueueFileName(name):
			// The queue of the processes waiting for a lock.
		case e.Type().IsRegular() && filestore.IsTakenFileName(name):
			// How a lock's session took it, beside its lock file.
		case e.Type().IsRegular() && name == filestore.AreasFileName:
			// The areas that may be held.
		case e.IsDir() && name == filestore.VersionsDirName:
			// The read versions (checked by the versions check).
		case filepath.Ext(name) == ".lock":
			// Reported with the lock files that cannot be used.
		default:
			out = append(out, fmt.Sprintf("%s (%s)", name, filestore.TypeOf(e.Type())))
		}
	}
	return out
}

// tempFiles: no temporary file of agentlock's writer, older than
// atomicfile.StaleAge, lies in a folder agentlock writes (the home, the
// lock folder, the registry's folder, the project root and the folders of
// the agents' files). Such a file was left by a writer killed before its
// rename; the next write of the same file removes it.
func (d *run) tempFiles() Check {
	c := Check{Name: "temp-files"}
	dirs := append([]string{d.ws.Home, d.ws.LockDir, filepath.Dir(d.ws.RegistryPath), d.project.Root}, d.dirs...)
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	now := d.opts.Settings.Now()
	var left []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				left = append(left, fmt.Sprintf("%s (cannot list: %v)", dir, err))
			}
			continue
		}
		for _, e := range entries {
			if !atomicfile.IsTempName(e.Name()) || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil || now.Sub(info.ModTime()) <= atomicfile.StaleAge {
				continue // gone, or a write in progress
			}
			left = append(left, filepath.Join(dir, e.Name()))
		}
	}
	if len(left) == 0 {
		c.Status, c.Detail = OK, "no temporary file left by a killed writer"
		return c
	}
	c.Status = Warn
	c.Detail = fmt.Sprintf("%d temporary file(s) left by a killed writer: %s", len(left), strings.Join(left, ", "))
	c.Fix = "delete them (rm); the next write of the same file would remove them too"
	return c
}
