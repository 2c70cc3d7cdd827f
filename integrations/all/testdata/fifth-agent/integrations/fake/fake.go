// Package fake is a fifth agent that exists only in tests: its folder —
// fake.toml, its template, this file and the manifest_gen.go that go
// generate writes — and one line in integrations/all are everything an
// agent needs. TestAFifthAgentNeedsOnePackage copies it into a copy of the
// module as integrations/fake.
package fake

import (
	"embed"

	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns the Fake CLI: fake.toml and its template.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{})
}
