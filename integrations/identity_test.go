package integrations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// identified is an agent type as the agent packages declare one: its zero
// value is the agent.
type identified struct {
	integrations.Identified[identified]
}

func (identified) Identity() integrations.Identity {
	return integrations.Identity{Name: "demo", Title: "Demo CLI", Provider: "demos", Command: "demo-cli", SessionEnvVar: "DEMO_SESSION"}
}

func TestIdentifiedAnswersFromTheIdentity(t *testing.T) {
	var a identified
	assert.Equal(t, "demo", a.Name())
	assert.Equal(t, "Demo CLI", a.Title())
	assert.Equal(t, "demos", a.Provider())
	assert.Equal(t, "DEMO_SESSION", a.SessionEnvVar())
	assert.Equal(t, "demo-x", integrations.SessionID(agentOf{a}, "x"), "Name is the one SessionID reads")
}

// agentOf completes an identified type into an Agent.
type agentOf struct{ identified }

func (agentOf) Plan(integrations.Env) ([]integrations.Artifact, []string, error) {
	return nil, nil, nil
}
func (agentOf) EditedPaths(integrations.HookInput) ([]string, error) { return nil, nil }
func (agentOf) SessionContext(string) ([]byte, error)                { return nil, nil }

func TestIdentityData(t *testing.T) {
	id := integrations.Identity{Name: "demo", Title: "Demo CLI", Provider: "demos", Command: "demo-cli", SessionEnvVar: "DEMO_SESSION"}
	got := id.Data(integrations.Env{Bin: "/opt/agentlock", UserHome: "/home/u", Global: true})
	assert.Equal(t, templates.AgentData{Bin: "/opt/agentlock", Agent: "demo", Title: "Demo CLI", Command: "demo-cli", Provider: "demos",
		Wrapper: "scripts/agentlock-demo", PreEditHook: true}, got)
}
