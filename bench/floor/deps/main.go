// Command deps is a floor for bench/run.sh: a static Go process that links
// the third-party libraries every agentlock process links (cobra and its
// pflag, the YAML library of the registry's frontmatter, the TOML library
// of the agents' manifests), uses none of them, prints one line and exits.
// Every package linked into a binary runs its initialisation at every
// start, so no agentlock command can start faster than this.
package main

import (
	"os"

	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/spf13/cobra"
	_ "go.yaml.in/yaml/v3"
)

func main() { os.Stdout.WriteString("hello\n") }
