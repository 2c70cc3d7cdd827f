//go:build etcd

package etcdstore

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RepoID returns the id of the repository checked out at root: the URL of
// its "origin" remote, normalised so that every clone names it alike
// (git@github.com:Org/Repo.git, https://github.com/Org/Repo and
// ssh://git@github.com/Org/Repo all give github.com/org/repo; see
// NormalizeRemote). It reads the
// git configuration itself (no git process: every hook pays for this).
func RepoID(root string) (string, error) {
	cfg, err := gitConfigFile(root)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(cfg)
	if err != nil {
		return "", fmt.Errorf("repository id: %w", err)
	}
	u := originURL(data)
	if u == "" {
		return "", fmt.Errorf("repository id: %s has no origin remote: set one (git remote add origin URL) or give the id (agentlock init --store ... --repo-id ID)", root)
	}
	return NormalizeRemote(u), nil
}

// gitConfigFile finds the configuration file of the repository at root,
// following a .git file (a linked worktree, a submodule) to its common
// folder.
func gitConfigFile(root string) (string, error) {
	dot := filepath.Join(root, ".git")
	info, err := os.Stat(dot)
	if err != nil {
		return "", fmt.Errorf("repository id: %s is not a git checkout: give the id (agentlock init --store ... --repo-id ID): %w", root, err)
	}
	if info.IsDir() {
		return filepath.Join(dot, "config"), nil
	}
	data, err := os.ReadFile(dot)
	if err != nil {
		return "", fmt.Errorf("repository id: %w", err)
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("repository id: %s: not a gitdir file", dot)
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	if common, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		c := strings.TrimSpace(string(common))
		if !filepath.IsAbs(c) {
			c = filepath.Join(dir, c)
		}
		dir = c
	}
	return filepath.Join(dir, "config"), nil
}

// originURL returns remote.origin.url from the text of a git config file.
func originURL(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.EqualFold(strings.Join(strings.Fields(line), " "), `[remote "origin"]`)
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// caseInsensitiveHosts are the forges whose repository paths name one
// repository whatever their case (github.com/Acme/API is github.com/acme/api),
// by their canonical host; the hosts of their ssh-over-443 endpoints map
// to it.
var caseInsensitiveHosts = map[string]string{
	"github.com": "github.com", "ssh.github.com": "github.com",
	"gitlab.com": "gitlab.com", "altssh.gitlab.com": "gitlab.com",
}

// NormalizeRemote reduces a git remote URL to host/path the way the forge
// treats it: no scheme, user, port separator of scp-like syntax, trailing
// ".git" or '/'; the host in lower case, and on GitHub and GitLab (see
// caseInsensitiveHosts) the path too, so that
// https://github.com/Acme/API and git@github.com:acme/api.git are one
// repository.
func NormalizeRemote(u string) string {
	u = strings.TrimSpace(u)
	if scheme, rest, ok := strings.Cut(u, "://"); ok && !strings.Contains(scheme, "/") {
		u = rest
	} else if i := strings.Index(u, ":"); i > 0 && !strings.Contains(u[:i], "/") {
		u = u[:i] + "/" + u[i+1:] // git@host:org/repo
	}
	if at := strings.LastIndex(u, "@"); at >= 0 && at < strings.Index(u+"/", "/") {
		u = u[at+1:]
	}
	u = strings.TrimSuffix(strings.TrimSuffix(u, "/"), ".git")
	host, path, _ := strings.Cut(u, "/")
	if h, port, ok := strings.Cut(host, ":"); ok && (port == "22" || port == "443" || port == "80") {
		host = h
	}
	host = strings.ToLower(host)
	if canonical, ok := caseInsensitiveHosts[host]; ok {
		host, path = canonical, strings.ToLower(path)
	}
	if path == "" {
		return host
	}
	return host + "/" + strings.Trim(path, "/")
}
