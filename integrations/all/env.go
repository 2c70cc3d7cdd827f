package all

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations/kimi"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/integrations/pi"
	"github.com/agentlock/agentlock/workspace"
)

// DefaultSources are the folders of agent manifests of a command: the
// user's (UserDir) and the one of the working directory's project
// (.agentlock/agents), where init keeps the manifests given by path.
func DefaultSources(getenv func(string) string, home string) Sources {
	src := Sources{User: UserDir(getenv, home)}
	if wd, err := workspace.WorkDir(); err == nil {
		if project := workspace.FindProject(wd); project != "" {
			src.Project = filepath.Join(project, filepath.FromSlash(manifest.ProjectDir))
		}
	}
	return src
}

// AgentDirVars are the variables that move an agent CLI's user folder
// (integrations.Env.AgentDirs).
var AgentDirVars = []string{kimi.KimiCodeHomeVar, kimi.KimiShareDirVar, pi.AgentDirVar}

// AgentDirs reads AgentDirVars with getenv, made absolute; unset ones are
// left out.
func AgentDirs(getenv func(string) string) (map[string]string, error) {
	dirs := map[string]string{}
	for _, name := range AgentDirVars {
		dir := getenv(name)
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		dirs[name] = abs
	}
	return dirs, nil
}

// AgentOf returns the name of the built-in agent that a session id's
// prefix names ("claude-..."), or "".
func AgentOf(session string) string {
	if name, _, ok := strings.Cut(session, "-"); ok {
		if _, ok := Lookup(name); ok {
			return name
		}
	}
	return ""
}

// ProviderOf returns the provider of the agent a session belongs to: the
// agent its record names, else its id's prefix (AgentOf); "" when neither
// names a built-in agent.
func ProviderOf(session, agent string) string {
	if a, ok := Lookup(agent); ok {
		return a.Provider()
	}
	if a, ok := Lookup(AgentOf(session)); ok {
		return a.Provider()
	}
	return ""
}
