package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/store/filestore"
)

// fileSystem checks that dir (or, while it does not exist, the folder it
// will be created in) is on a local file system and not in a folder a
// sync client copies between machines: flock excludes only processes of
// one machine, and a sync client replaces files under agentlock.
func fileSystem(name, what, dir, userHome string) Check {
	c := Check{Name: name}
	at := existingAncestor(dir)
	// The folder as it will be: the existing part's real path (a synced
	// folder may be reached through a link), then the part to create.
	real := dir
	if r, err := filepath.EvalSymlinks(at); err == nil {
		if rest, err := filepath.Rel(at, dir); err == nil {
			real = filepath.Join(r, rest)
		}
	}
	if r, err := filepath.EvalSymlinks(userHome); err == nil {
		userHome = r
	}
	if service := syncedFolder(real, userHome, runtime.GOOS); service != "" {
		c.Status = Problem
		c.Detail = fmt.Sprintf("%s %s is in a folder synced by %s: sync clients replace files and copy them between machines, where flock excludes nothing", what, dir, service)
		c.Fix = "keep the home in a local folder that is not synced: the project's own .agent-registry/ (agentlock init), or AGENT_REGISTRY_HOME"
		if service == syncedDesktop {
			c.Status = Warn
			c.Detail = fmt.Sprintf("%s %s is in ~/Desktop or ~/Documents, which iCloud Drive syncs when \"Desktop & Documents Folders\" is on", what, dir)
			c.Fix = "check System Settings > Apple Account > iCloud > iCloud Drive; or keep the home in the project (agentlock init --home <project>/.agent-registry)"
		}
		return c
	}
	fsys, err := filestore.FileSystemAt(at)
	switch {
	case err != nil:
		c.Status, c.Detail = Problem, fmt.Sprintf("cannot tell the file system of %s: %v", what, err)
		c.Fix = "make " + at + " readable"
	case fsys.Kind == filestore.FSNetwork:
		c.Status, c.Detail = Problem, fmt.Sprintf("%s %s is on %s, a network file system: flock does not exclude between machines there, and agentlock refuses it", what, dir, fsys.Name)
		c.Fix = "keep the home on a local disk (AGENT_REGISTRY_HOME, or the project's .agent-registry/ on a local checkout)"
	case fsys.Kind == filestore.FSUnknown:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s %s is on a file system agentlock does not know (%s, on %s): it cannot tell whether flock excludes there", what, dir, fsys.Name, runtime.GOOS)
		c.Fix = "make sure it is a local disk, not a network or FUSE mount (sshfs) or a synced drive"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("%s %s is on %s, a local file system", what, dir, fsys.Name)
	}
	return c
}

// existingAncestor returns dir, or its nearest ancestor that exists.
func existingAncestor(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// syncedDesktop is syncedFolder's answer for macOS's Desktop and Documents
// folders, which iCloud Drive syncs only when the user turned that on.
const syncedDesktop = "iCloud Drive (Desktop & Documents)"

// syncedFolder names the sync service whose folder path is in, from the
// path alone ("" when none is recognised): iCloud Drive (~/Library/Mobile
// Documents, and on macOS ~/Desktop and ~/Documents: syncedDesktop), the
// File Provider folders of ~/Library/CloudStorage (Dropbox, OneDrive,
// Google Drive, Box), and the folders the Dropbox, OneDrive and Google
// Drive clients create under their own names.
func syncedFolder(path, userHome, goos string) string {
	slash := filepath.ToSlash(path)
	if strings.Contains(slash+"/", "/Library/Mobile Documents/") {
		return "iCloud Drive"
	}
	if _, rest, ok := strings.Cut(slash, "/Library/CloudStorage/"); ok {
		provider, _, _ := strings.Cut(rest, "/")
		return cloudStorageName(provider)
	}
	for _, part := range strings.Split(slash, "/") {
		switch {
		case part == "Dropbox" || strings.HasPrefix(part, "Dropbox ("):
			return "Dropbox"
		case part == "OneDrive" || strings.HasPrefix(part, "OneDrive - ") || strings.HasPrefix(part, "OneDrive-"):
			return "OneDrive"
		case part == "Google Drive" || part == "GoogleDrive" || part == "My Drive":
			return "Google Drive"
		case part == "iCloudDrive" || part == "iCloud Drive":
			return "iCloud Drive"
		}
	}
	if goos == "darwin" && userHome != "" {
		for _, d := range []string{"Desktop", "Documents"} {
			if integrations.Within(path, filepath.Join(userHome, d)) {
				return syncedDesktop
			}
		}
	}
	return ""
}

// cloudStorageName names the provider of a ~/Library/CloudStorage folder
// ("Dropbox", "OneDrive-Personal", "GoogleDrive-me@example.com").
func cloudStorageName(folder string) string {
	for _, p := range []struct{ prefix, name string }{
		{"Dropbox", "Dropbox"}, {"OneDrive", "OneDrive"}, {"GoogleDrive", "Google Drive"}, {"Box", "Box"}, {"iCloud", "iCloud Drive"},
	} {
		if strings.HasPrefix(folder, p.prefix) {
			return p.name
		}
	}
	if folder == "" {
		return "a cloud storage provider"
	}
	return folder + " (a cloud storage provider)"
}

// writable: agentlock can create files in the lock folder and in the
// registry's folder, found by creating (and removing) a probe file in
// each. A folder a user cannot write makes every acquire fail and every
// edit denied, whatever the other checks say. A folder that does not exist
// yet is the home check's business; with a distributed store the lock
// files are not used.
func (d *run) writable() []Check {
	var checks []Check
	dirs := []struct{ name, what, dir string }{
		{"lockdir-writable", "the lock folder", d.ws.LockDir},
		{"registry-writable", "the registry's folder", filepath.Dir(d.ws.RegistryPath)},
	}
	if d.ws.Store().Set() {
		return nil
	}
	for i, x := range dirs {
		if _, err := os.Stat(x.dir); err != nil || (i > 0 && filepath.Clean(x.dir) == filepath.Clean(dirs[0].dir)) {
			continue
		}
		c := Check{Name: x.name, Status: OK, Detail: x.what + " " + x.dir + " is writable"}
		if err := probe(x.dir); err != nil {
			c.Status = Problem
			c.Detail = fmt.Sprintf("%s %s is not writable (%v): every acquire and every registry write there fails, and the hooks deny every edit", x.what, x.dir, err)
			c.Fix = "give the user who runs the agents write permission on " + x.dir + " (chmod u+w, or chown)"
		}
		checks = append(checks, c)
	}
	return checks
}

// probe creates a file in dir, writes to it and removes it.
func probe(dir string) error {
	f, err := os.CreateTemp(dir, ".agentlock-doctor-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	_, werr := f.WriteString("agentlock doctor\n")
	cerr := f.Close()
	rerr := os.Remove(name)
	return errors.Join(werr, cerr, rerr)
}
