package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// whoamiRecord is the JSON line of whoami.
type whoamiRecord struct {
	SessionID string `json:"session_id"`
	Source    string `json:"source"`
}

func newWhoamiCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "whoami",
		Short: "Print the session id agentlock would use here, and where it came from",
		Long: `Print the session id that commands run here use when none is given, and
where it came from. The order is: --session, AGENTLOCK_SESSION, then the id
an agent harness exports — CLAUDE_CODE_SESSION_ID (as claude-<id>),
CODEX_THREAD_ID (as codex-<id>), GEMINI_SESSION_ID (as gemini-<id>).
Hooks also read the session_id of their stdin payload.

Exits 1 when there is no session id.`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			if c.Session == "" {
				if c.JSON {
					if err := writeJSON(f.Out, whoamiRecord{}); err != nil {
						return err
					}
				}
				fmt.Fprintln(f.ErrOut, "agentlock: no session id: pass --session ID or set AGENTLOCK_SESSION "+
					"(Claude Code and Codex export their own: CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID)")
				return errSilentRefusal
			}
			return emit(f, c, whoamiRecord{SessionID: c.Session, Source: c.SessionSource},
				fmt.Sprintf("%s (from %s)", c.Session, c.SessionSource))
		}),
	}
}

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
			wd, err := workDir()
			if err != nil {
				return err
			}
			reg, err := c.registryFor(wd)
			if err != nil {
				return err
			}
			dir, err := c.lockDirFor(wd)
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
