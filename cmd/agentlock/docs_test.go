package main_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the command tree (and docs/dashboard.png, from the browser test)")

// cliReference is docs/cli.md, generated from the cobra tree by agentlock docs.
var cliReference = filepath.Join("..", "..", "docs", "cli.md")

// TestCLIReference runs the scripts of testdata/script/docs, which fail when
// a command, flag or help text changed without regenerating docs/cli.md;
// with -update, it regenerates the file first.
func TestCLIReference(t *testing.T) {
	if *update {
		p := newProject(t)
		r := p.run("docs")
		requireExit(t, 0, r)
		require.NoError(t, os.WriteFile(cliReference, []byte(r.Stdout), 0o644))
	}
	runScripts(t, "docs", func(env *testscript.Env) error {
		// The committed reference, for the script to compare.
		data, err := os.ReadFile(cliReference)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(env.WorkDir, "cli.md"), data, 0o644)
	})
}
