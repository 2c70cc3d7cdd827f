package main

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/doctor"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// DoctorOptions are the inputs of agentlock doctor.
type DoctorOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Config: f.Lenient}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that agentlock can do its job here, and say what to fix",
		Long: `Check the project of the working directory and this machine, one line per
check — ok, warn or problem — with what to do:

  configuration       every AGENTLOCK_* setting, and the project's timeout file,
      is valid
  home, home-filesystem, lockdir-filesystem   the registry and lock folder exist,
      on a local file system (not NFS/SMB, not a folder iCloud Drive, Dropbox,
      OneDrive or Google Drive syncs)
  lockdir-writable, registry-writable, registry   both folders take a file, and
      the registry reads
  store, store-*      the store setting can be used; on etcd, the cluster answers
      (docs/teams.md)
  agentlock-on-path   the agentlock that hooks and agents run is this build
  integration-<agent>  each connected agent CLI's files are up to date, and
      which agentlock wrote them when another version did (and whether it matters)
  gating-<agent>      its hooks would gate the project's files
  codex-hook-trust, gemini-folder-trust, qwen-project-trust, copilot-folder-trust,
  pi-project-trust, cline-hooks-executable, droid-hooks, crush-hooks
                      the harness runs agentlock's hooks
  mcp-server          agentlock mcp starts and lists its tools (docs/mcp.md)
  kimi-mcp-trust      Kimi Code trusts the project, so it loads agentlock's MCP
      server (it skips a folder's MCP servers until "Trust this folder")
  kimi-legacy         the kimi on PATH is Kimi Code, not the unsupported legacy
      kimi-cli, and no file is left for kimi-cli
  worktrees           the repository's worktrees and their lock space
      (docs/worktrees.md)
  agent-registry-0.2  no live 0.2 lock that this project's agents do not see
  lock-files          no corrupt, busy, linked or foreign file in the lock folder
  clock               no lock stamped in the future
  temp-files          no temporary file left by a killed writer

doctor only reads. It exits 1 when any check finds a problem, 0 otherwise
(warnings included). --json prints one record per check: name, status,
detail, fix. docs/doctor.md describes every check.`,
		Example: `  agentlock doctor
  agentlock doctor --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return doctorRun(cmd.Context(), opts)
		},
	}
	return cmd
}

func doctorRun(ctx context.Context, opts *DoctorOptions) error {
	c, wd, err := configDir(opts.Config)
	if err != nil {
		return err
	}
	self, err := selfProgram()
	if err != nil {
		return err
	}
	checks, err := doctor.Run(ctx, doctor.Options{Dir: wd, Settings: c.Settings, SearchPath: c.SearchPath, Self: self,
		MCPServer: workspace.MCPProgramFor(thisProcess(nil)), Vars: c.AgentVars,
		Environ: os.Environ(), AgentDirs: c.AgentDirs, Writer: thisWriter(),
		Agents: c.Agents, Problems: c.Problems})
	if err != nil {
		return err
	}
	for _, ch := range checks {
		if c.JSON {
			err = report.WriteJSON(opts.IO.Out, report.DoctorCheck{Name: ch.Name, Status: string(ch.Status), Detail: ch.Detail, Fix: ch.Fix})
		} else {
			err = doctor.WriteCheck(opts.IO.Out, ch)
		}
		if err != nil {
			return err
		}
	}
	if doctor.Failed(checks) {
		return report.ErrReported
	}
	return nil
}
