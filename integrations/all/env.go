package all

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/workspace"
)

// DefaultSources are the folders of agent manifests of a command: the
// user's (UserDir) and the one of the project of workDir, the command's
// real working directory ("" when unknown: none), where init keeps the
// manifests given by path (.agentlock/agents).
func DefaultSources(getenv func(string) string, home, workDir string) Sources {
	src := Sources{User: UserDir(getenv, home)}
	if workDir != "" {
		if project := workspace.FindProject(workDir); project != "" {
			src.Project = filepath.Join(project, filepath.FromSlash(manifest.ProjectDir))
		}
	}
	return src
}

// AgentDirs reads with getenv the variables that move the user folders of
// the CLIs of s (integrations.Variables.DirVars), made absolute: the
// integrations.Env.AgentDirs of a plan. Unset ones are left out.
func (s Set) AgentDirs(getenv func(string) string) (map[string]string, error) {
	dirs := map[string]string{}
	for _, name := range s.vars(integrations.Variables.DirVars) {
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

// EnvVars reads with getenv the other variables that the agents of s read
// (integrations.Variables.EnvVars, for their doctor checks), by name; unset
// ones are left out.
func (s Set) EnvVars(getenv func(string) string) map[string]string {
	vals := map[string]string{}
	for _, name := range s.vars(integrations.Variables.EnvVars) {
		if v := getenv(name); v != "" {
			vals[name] = v
		}
	}
	return vals
}

// vars returns the variables that list gives for the agents of s that read
// variables, each once.
func (s Set) vars(list func(integrations.Variables) []string) []string {
	var names []string
	for _, a := range s {
		if v, ok := a.(integrations.Variables); ok {
			for _, name := range list(v) {
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
		}
	}
	return names
}

// AgentOf returns the name of the built-in agent that a session id's
// prefix names ("claude-..."), or "".
func AgentOf(session string) string {
	if name, _, ok := strings.Cut(session, "-"); ok {
		if _, ok := Agents().Lookup(name); ok {
			return name
		}
	}
	return ""
}

// ProviderOf returns the provider of the agent a session belongs to: the
// agent its record names, else its id's prefix (AgentOf); "" when neither
// names a built-in agent.
func ProviderOf(session, agent string) string {
	builtin := Agents()
	if a, ok := builtin.Lookup(agent); ok {
		return a.Provider()
	}
	if a, ok := builtin.Lookup(AgentOf(session)); ok {
		return a.Provider()
	}
	return ""
}
