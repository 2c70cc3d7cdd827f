package core

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// RealPath returns the lock identity of path: absolute, with every symbolic
// link resolved and every "." and ".." removed. It follows Python's
// os.path.realpath in its default, non-strict mode, so that agentlock and the
// agent-registry 0.2 scripts name the same file the same way:
//
//   - a relative path is taken relative to cwd (the process working
//     directory when cwd is empty);
//   - components that exist are resolved through symbolic links, and ".."
//     removes the last component of the path resolved so far, so "link/.."
//     is the parent of the link's target, not the folder holding the link;
//   - a tail that does not exist yet is kept as written (an agent may lock a
//     file before creating it);
//   - a symbolic-link loop is not an error: the looping part is kept as is.
//
// A path holding a NUL byte, or longer than MaxPathLen (given or
// resolved), is refused with ErrInvalidPath.
//
// RealPath reads the file system (lstat and readlink) but never writes it.
func RealPath(path, cwd string) (string, error) {
	return realPath(path, cwd, false)
}

// RealPathIn is RealPath with a relative path taken relative to dir, the
// real path of a folder (RealPath's result, as workspace.WorkDir gives the
// working folder's): dir is not resolved again, which spares a system
// call per folder of it. The result is RealPath(path, dir)'s, since
// resolving a real path changes nothing. An absolute path is RealPath's.
func RealPathIn(path, dir string) (string, error) {
	return realPath(path, dir, dir != "")
}

// realPath is RealPath, from cwd taken as real when cwdIsReal.
func realPath(path, cwd string, cwdIsReal bool) (string, error) {
	if path == "" {
		return "", fmt.Errorf("real path: empty path")
	}
	// No file name holds a NUL (the system calls would cut the path
	// there), so such a path would lock a name no file can have.
	if strings.IndexByte(path, 0) >= 0 {
		return "", fmt.Errorf("real path of %q: %w: it holds a NUL byte", path, ErrInvalidPath)
	}
	// base is resolved already; rest is resolved on top of it.
	base, rest := string(filepath.Separator), path
	if !filepath.IsAbs(path) {
		if cwd == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("real path of %s: %w", path, err)
			}
			cwd = wd
		}
		// Join without cleaning: "a/link/.." must be resolved through the
		// link before ".." applies, exactly as Python does.
		path = cwd + string(filepath.Separator) + path
		if cwdIsReal {
			base = cwd
		} else {
			rest = path
		}
	}
	if len(path) > MaxPathLen {
		return "", tooLong(path)
	}
	r := resolver{seen: map[string]string{}}
	resolved, _, err := r.join(base, rest)
	if err != nil {
		return "", fmt.Errorf("real path of %s: %w", path, err)
	}
	if len(resolved) > MaxPathLen {
		return "", tooLong(resolved)
	}
	return resolved, nil
}

// MaxPathLen is the longest real path agentlock locks, in bytes: Linux's
// PATH_MAX, past which no system call takes the path whole (macOS's is
// shorter). With it, the longest lock record (a 4,096-byte session id, a
// stamp, the path) stays far below what the stores read of a record, so
// every lock that can be taken can be renewed, released and checked.
const MaxPathLen = 4096

// tooLong is the error of a path longer than MaxPathLen, naming its start.
func tooLong(path string) error {
	return fmt.Errorf("real path of %s: %w: longer than %d bytes, the longest path a file can be opened by",
		ShortPath(path), ErrInvalidPath, MaxPathLen)
}

// MaxShownPath is the longest path a message shows whole, in bytes.
const MaxShownPath = 256

// ShortPath is a path as a message shows it: whole up to MaxShownPath
// bytes; a longer one (a 5 KB argument, say) as its first 60 bytes, "...",
// and its length, so that an error about it stays one readable line.
func ShortPath(path string) string {
	if len(path) <= MaxShownPath {
		return path
	}
	cut := 60
	for cut > 0 && !utf8.RuneStart(path[cut]) {
		cut-- // never half a character
	}
	return fmt.Sprintf("%s... (%d bytes)", path[:cut], len(path))
}

// resolver carries the symbolic links met so far, to detect loops the way
// Python's _joinrealpath does: a link being resolved maps to "" until its
// target is known.
type resolver struct {
	seen map[string]string
}

// join resolves rest on top of the already resolved absolute path base.
// The boolean is false when a symbolic-link loop stopped the resolution; the
// remaining components are then appended unresolved.
func (r *resolver) join(base, rest string) (string, bool, error) {
	const sep = string(filepath.Separator)
	path := base
	if strings.HasPrefix(rest, sep) {
		path = sep
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, sep)
		switch name {
		case "", ".":
			continue
		case "..":
			path = filepath.Dir(path)
			continue
		}
		next := filepath.Join(path, name)
		info, err := os.Lstat(next)
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			// Missing components are kept lexically (non-strict mode).
			path = next
			continue
		}
		if target, ok := r.seen[next]; ok {
			if target != "" {
				path = target
				continue
			}
			return filepath.Join(next, rest), false, nil
		}
		r.seen[next] = ""
		link, err := os.Readlink(next)
		if err != nil {
			return "", false, err
		}
		resolved, ok, err := r.join(path, link)
		if err != nil {
			return "", false, err
		}
		if !ok {
			return filepath.Join(resolved, rest), false, nil
		}
		r.seen[next] = resolved
		path = resolved
	}
	return path, true, nil
}
