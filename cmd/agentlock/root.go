package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/report"
)

// newRootCmd builds the command tree for one process, and sets f.Config to
// resolve the configuration from the tree's flags.
// newRootCmd returns the command tree for the command line args: the whole
// tree, or only the top-level command that args starts with.
func newRootCmd(f *Factory, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentlock",
		Short: "Advisory path locks and a shared registry for AI coding agents",
		Long: `agentlock lets several AI coding agents work in one repository without
overwriting each other. A lock names the session that owns a path; it lives in
a lock file, so it outlives the one-shot command that took it, and expires
when its owner stops renewing it.

Locks are advisory: they protect agents that consult agentlock, not writes of
programs that ignore it.`,
		// A bare "agentlock" or an unknown command is a usage error.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UnknownCommand(cmd, args[0])
			}
			return usagef("a command is required")
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	root.SetVersionTemplate("agentlock {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	flags := cmdutil.GlobalFlags(root)
	f.Config, f.Lenient, f.closeConfig = cliconfig.Lazy(flags, f.Now)
	f.Settings = func() (*config, error) { return cliconfig.LoadSettings(flags, f.Now) }

	if build := onlyCommand(args); build != nil {
		// A command line that names its command builds that command
		// alone: a lock call or a hook pays for one command's flags, not
		// for the whole tree's (a third of the instructions of a check:
		// 2.40M with the whole tree, 1.61M alone, callgrind).
		// Help, completion, suggestions and the reference see the whole
		// tree.
		root.CompletionOptions.DisableDefaultCmd = true
		f.alone = true
		root.AddCommand(build(f))
		cmdutil.UsageArgs(root)
		return root
	}
	// agentlock --version: a flag of the root alone, so only a line that
	// runs the root has it (the build information is parsed for it).
	root.Version = moduleVersion()
	for _, c := range topLevelCommands() {
		root.AddCommand(c.build(f))
	}
	cmdutil.CompletionUsage(root)
	cmdutil.HelpUsage(root)
	cmdutil.UsageArgs(root)
	return root
}

// topLevelCommand builds one command of the root.
type topLevelCommand struct {
	name  string
	build func(*Factory) *cobra.Command
	// wholeTree is set on the commands that read the rest of the tree.
	wholeTree bool
}

// topLevelCommands lists the root's commands in the order help shows them.
func topLevelCommands() []topLevelCommand {
	return []topLevelCommand{
		{name: "acquire", build: func(f *Factory) *cobra.Command { return newCmdAcquire(f, nil) }},
		{name: "release", build: func(f *Factory) *cobra.Command { return newCmdRelease(f, nil) }},
		{name: "check", build: func(f *Factory) *cobra.Command { return newCmdCheck(f, nil) }},
		{name: "heartbeat", build: func(f *Factory) *cobra.Command { return newCmdHeartbeat(f, nil) }},
		{name: "heartbeat-loop", build: func(f *Factory) *cobra.Command { return newCmdHeartbeatLoop(f, nil) }},
		{name: "status", build: func(f *Factory) *cobra.Command { return newCmdStatus(f, nil) }},
		{name: "conflicts", build: func(f *Factory) *cobra.Command { return newCmdConflicts(f, nil) }},
		{name: "serve", build: func(f *Factory) *cobra.Command { return newCmdServe(f, nil) }},
		{name: "register", build: func(f *Factory) *cobra.Command { return newCmdRegister(f, nil) }},
		{name: "update", build: func(f *Factory) *cobra.Command { return newCmdUpdate(f, nil) }},
		{name: "finish", build: func(f *Factory) *cobra.Command { return newCmdFinish(f, nil) }},
		{name: "handoff", build: func(f *Factory) *cobra.Command { return newCmdHandoff(f, nil) }},
		{name: "show", build: func(f *Factory) *cobra.Command { return newCmdShow(f, nil) }},
		{name: "log", build: func(f *Factory) *cobra.Command { return newCmdLog(f, nil) }},
		{name: "init", build: func(f *Factory) *cobra.Command { return newCmdInit(f, nil) }},
		{name: "uninit", build: func(f *Factory) *cobra.Command { return newCmdUninit(f, nil) }},
		{name: "doctor", build: func(f *Factory) *cobra.Command { return newCmdDoctor(f, nil) }},
		{name: "hook", build: func(f *Factory) *cobra.Command { return newCmdHook(f, nil) }},
		{name: "guard", build: func(f *Factory) *cobra.Command { return newCmdGuard(f, nil) }},
		{name: "mcp", build: func(f *Factory) *cobra.Command { return newCmdMCP(f, nil) }},
		{name: "whoami", build: func(f *Factory) *cobra.Command { return newCmdWhoami(f, nil) }},
		{name: "env", build: func(f *Factory) *cobra.Command { return newCmdEnv(f, nil) }},
		{name: "version", build: func(f *Factory) *cobra.Command { return newCmdVersion(f, nil) }},
		{name: "docs", build: func(f *Factory) *cobra.Command { return newCmdDocs(f, nil) }, wholeTree: true},
	}
}

// onlyCommand returns the builder of the command that args names first,
// when that command alone can run the line; nil when the line needs the
// whole tree (no command first, an unknown name, help, completion).
func onlyCommand(args []string) func(*Factory) *cobra.Command {
	if len(args) == 0 {
		return nil
	}
	for _, c := range topLevelCommands() {
		if c.name == args[0] && !c.wholeTree {
			return c.build
		}
	}
	return nil
}

// execute runs the command line args and returns the exit code. Errors are
// printed as one line on stderr; a usage error is followed by where its usage is.
func execute(f *Factory, args []string) int {
	f.Args = args
	root := newRootCmd(f, args)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if f.closeConfig != nil {
		for _, w := range core.Unjoin(f.closeConfig()) {
			fmt.Fprintf(f.IO.ErrOut, "agentlock: warning: %s\n", report.Escape(w.Error()))
		}
	}
	return cmdutil.Fail(f.IO.Out, f.IO.ErrOut, cmd, args, err)
}

// usagef returns a usage error shown with the usage (report.UsageErrorf).
func usagef(format string, args ...any) error { return report.UsageErrorf(format, args...) }
