package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
)

// EnvOptions are the inputs of agentlock env.
type EnvOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdEnv(f *Factory, runF func(*EnvOptions) error) *cobra.Command {
	opts := &EnvOptions{IO: f.IO, Config: f.Lenient}
	return &cobra.Command{
		Use:   "env",
		Short: "Print the registry and lock folder for this directory, as shell exports",
		Long: `Print AGENT_REGISTRY_PATH and AGENT_REGISTRY_LOCK_DIR, resolved for the working
directory, as shell export lines. The wrapper scripts run
  eval "$(agentlock env)"
so that the agent's commands and hooks use the same registry and locks
wherever the agent changes directory. agent-registry 0.2 reads the same two
variables, so its scripts run by the agent share them too; a project that
shares a home (agentlock init --home) exports that home's paths.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return envRun(cmd.Context(), opts)
		},
	}
}

func envRun(ctx context.Context, opts *EnvOptions) error {
	c, ws, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	out.WarnProblems(c.Problems)
	rec := report.Env{Registry: ws.RegistryPath, LockDir: ws.LockDir}
	return out.Emit(rec, rec.Exports())
}
