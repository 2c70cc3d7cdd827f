package core

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/templates"
)

var update = flag.Bool("update", false, "rewrite templates/registry-empty.md from the renderer")

func protocol(t *testing.T) string {
	t.Helper()
	p, err := templates.Protocol(templates.ProtocolData{Bin: "agentlock"})
	require.NoError(t, err)
	return p
}

// The empty registry template is exactly what the writer renders for a
// registry with no session, so the two cannot drift.
func TestEmptyRegistryTemplateMatchesRenderer(t *testing.T) {
	rendered, err := renderRegistry(Document{Version: RegistryVersion, Agents: []Session{}}, protocol(t))
	require.NoError(t, err)
	if *update {
		require.NoError(t, os.WriteFile(filepath.Join("..", "templates", "registry-empty.md"), rendered, 0o644))
	}
	tmpl, err := templates.EmptyRegistry()
	require.NoError(t, err)
	assert.Equal(t, string(rendered), string(tmpl), "run go test ./core -run EmptyRegistry -update")
	assert.Contains(t, string(tmpl), protocol(t))
}

func TestTableCellsCannotBreakRows(t *testing.T) {
	s := Session{SessionID: "a", WorkingOn: "x | y\nz", Space: []string{"p|q", "r\ns"}, DoNotTouch: []string{`back\slash|`}}
	data, err := renderRegistry(Document{Agents: []Session{s}}, protocol(t))
	require.NoError(t, err)
	_, table, _ := strings.Cut(string(data), "<!-- PROTOCOL:END -->")
	rows := strings.Split(strings.TrimSpace(table), "\n")
	require.Len(t, rows, 3, "header, separator, one row")
	unescaped := strings.Count(strings.ReplaceAll(rows[2], `\\`, ""), "|") - strings.Count(strings.ReplaceAll(rows[2], `\\`, ""), `\|`)
	assert.Equal(t, strings.Count(rows[0], "|"), unescaped, "the row has as many cells as the header")

	back, err := parseRegistry("registry.md", data)
	require.NoError(t, err)
	assert.Equal(t, s.WorkingOn, back.Agents[0].WorkingOn)
	assert.Equal(t, s.Space, back.Agents[0].Space)
	assert.Equal(t, s.DoNotTouch, back.Agents[0].DoNotTouch)
}
