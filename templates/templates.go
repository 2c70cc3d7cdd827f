// Package templates holds the text that agentlock generates — the protocol
// block of registry.md and the empty registry — embedded in the binary. It
// is the single source of that text: nothing is assembled by hand in Go.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"text/template"
)

//go:embed *.tmpl *.md
var files embed.FS

// ProtocolData fills the protocol block template.
type ProtocolData struct {
	// Bin is the command agents run, normally "agentlock".
	Bin string
}

// Protocol renders the protocol block that registry.md carries between its
// frontmatter and its table, from "<!-- PROTOCOL:START" to
// "<!-- PROTOCOL:END -->" inclusive, without a trailing newline.
func Protocol(data ProtocolData) (string, error) {
	t, err := template.ParseFS(files, "protocol.md.tmpl")
	if err != nil {
		return "", fmt.Errorf("protocol template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("protocol template: %w", err)
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// EmptyRegistry returns the registry.md of a project where no session has
// registered yet: the protocol block for "agentlock", frontmatter and an
// empty table. A test keeps it equal to what the registry writer renders.
func EmptyRegistry() ([]byte, error) {
	return files.ReadFile("registry-empty.md")
}
