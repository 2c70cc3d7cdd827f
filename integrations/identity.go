package integrations

import "github.com/agentlock/agentlock/templates"

// Identity is what names an agent CLI: the values of Agent's Name, Title,
// Provider and SessionEnvVar, and the command its wrapper script runs.
// An agent package whose agent is its type's zero value states them once,
// in an Identity method, and embeds Identified for the methods of Agent
// that return them.
type Identity struct {
	// Name is the agent's name on the command line: "codex".
	Name string
	// Title is the product name: "Codex CLI".
	Title string
	// Provider is the vendor recorded in the registry: "openai".
	Provider string
	// Command is the agent's CLI, which the wrapper script runs: "codex".
	Command string
	// SessionEnvVar is the environment variable holding the harness's
	// session id in the model's shell and hooks, or "" when there is none.
	SessionEnvVar string
}

// Data returns the template data of the agent planning in env, with the
// pre-edit hook installed: its files run env.Bin, and its wrapper script
// is at WrapperPath(id.Name).
func (id Identity) Data(env Env) templates.AgentData {
	return templates.AgentData{Bin: env.Bin, Agent: id.Name, Title: id.Title, Command: id.Command, Provider: id.Provider,
		Wrapper: WrapperPath(id.Name), PreEditHook: true}
}

// Identifier is implemented by a type whose zero value is one agent: its
// Identity method returns the same Identity whatever the receiver.
type Identifier interface {
	Identity() Identity
}

// Identified gives the agent type A, embedded in it, the methods of Agent
// that only return A's Identity: Name, Title, Provider and SessionEnvVar.
// A's zero value is the agent, so a package declares
//
//	type Agent struct{ integrations.Identified[Agent] }
//
//	func (Agent) Identity() integrations.Identity { return integrations.Identity{Name: "codex", ...} }
//
// and Agent{} stays the agent.
type Identified[A Identifier] struct{}

// identity is the Identity of A's zero value.
func (Identified[A]) identity() Identity {
	var a A
	return a.Identity()
}

// Name implements Agent: Identity().Name.
func (i Identified[A]) Name() string { return i.identity().Name }

// Title implements Agent: Identity().Title.
func (i Identified[A]) Title() string { return i.identity().Title }

// Provider implements Agent: Identity().Provider.
func (i Identified[A]) Provider() string { return i.identity().Provider }

// SessionEnvVar implements Agent: Identity().SessionEnvVar.
func (i Identified[A]) SessionEnvVar() string { return i.identity().SessionEnvVar }
