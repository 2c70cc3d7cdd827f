package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// envRecord is the JSON line of env.
type envRecord struct {
	Registry string `json:"registry"`
	LockDir  string `json:"lock_dir"`
}

func newEnvCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "env",
		Short: "Print the registry and lock folder for this directory, as shell exports",
		Long: `Print AGENT_REGISTRY_PATH and AGENT_REGISTRY_LOCK_DIR, resolved for the working
directory, as shell export lines. The wrapper scripts run
  eval "$(agentlock env)"
so that the agent's commands and hooks use the same registry and locks
wherever the agent changes directory.`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			reg, err := c.workRegistry()
			if err != nil {
				return err
			}
			dir, err := c.workLockDir()
			if err != nil {
				return err
			}
			human := fmt.Sprintf("export AGENT_REGISTRY_PATH=%s\nexport AGENT_REGISTRY_LOCK_DIR=%s", shellQuote(reg.Path), shellQuote(dir))
			return emit(f, c, envRecord{Registry: reg.Path, LockDir: dir}, human)
		}),
	}
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
