package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/session"
)

// RegisterOptions are the inputs of agentlock register.
type RegisterOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string
	Session string // typed; empty for the session known here
	// AgentPID, when not zero, is recorded as the agent process of the
	// session (the wrapper scripts pass their own PID).
	AgentPID                                           int
	Provider, AIVersion, WorkingOn, Space, TodoPresent string
	// Claim takes the session's space entries as area locks, all or none.
	Claim bool
}

func newCmdRegister(f *Factory, runF func(*RegisterOptions) error) *cobra.Command {
	opts := &RegisterOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "register [session] [provider] [ai_version] [working_on] [space,...] [todo_present,...]",
		Short: "Register a session in registry.md (status OnWorking)",
		Long: `Add the session to the registry with status OnWorking and the current time as
its start; when the id is already there, mark it OnWorking again and change
only the fields given, keeping the others (its start, the paths it holds, its
todo lists and notes). Lists are
comma-separated. Flags may replace the positional arguments; a field given
both ways is refused.

With --claim, the session's space entries are then taken as area locks (each
a folder and every path below it), all of them or none, and written back as
their real paths ending in "/"; show and the registry's table mark them
"(area)" while they are held. A refusal (exit 1) names the holders; the
session stays registered.

Without a session, the session known here (see agentlock whoami); a typed id
that is not that session is refused. The provider defaults to the agent's
(from the session's prefix, one per agent: claude-, codex-, gemini-, kimi-,
copilot-, ...), and to "human" for a session of no known agent (a person's id such as demo-session); the AI
version to "unknown"; what the session works on is required.`,
		Example: `  agentlock register --working-on "refactor auth"
  agentlock register claude-1 anthropic claude-opus-4 "refactor auth" src/auth,tests/auth "split login()"
  agentlock register codex-2 --provider openai --ai-version gpt-5-codex --working-on "fix CI"
  agentlock register --working-on "refactor auth" --space src/auth,tests/auth --claim`,
		Args: cobra.MaximumNArgs(6),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = cmd.CommandPath()
			positional := []*string{&opts.Session, &opts.Provider, &opts.AIVersion, &opts.WorkingOn, &opts.Space, &opts.TodoPresent}
			flags := []string{"session", "provider", "ai-version", "working-on", "space", "todo-present"}
			for i, arg := range args {
				// A field given both ways is refused rather than one
				// value dropped (the session: see commandSession).
				if i > 0 && cmd.Flags().Changed(flags[i]) {
					return usagef("%s given twice (argument and --%s)", strings.ReplaceAll(flags[i], "-", "_"), flags[i])
				}
				*positional[i] = arg
			}
			if runF != nil {
				return runF(opts)
			}
			return registerRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Provider, "provider", "", "vendor of the agent (anthropic, openai, google, moonshot, ...)")
	fl.StringVar(&opts.AIVersion, "ai-version", "", "model or CLI version")
	fl.StringVar(&opts.WorkingOn, "working-on", "", "what the session works on, in a sentence")
	fl.StringVar(&opts.Space, "space", "", "comma-separated paths or areas the session works in")
	fl.StringVar(&opts.TodoPresent, "todo-present", "", "comma-separated tasks in progress")
	fl.BoolVar(&opts.Claim, "claim", false, "take the session's space entries as area locks (all or none)")
	fl.IntVar(&opts.AgentPID, "agent-pid", 0, "record this process as the session's agent process, so that commands run under it find the session (the wrapper scripts pass their own)")
	return cmd
}

func registerRun(ctx context.Context, opts *RegisterOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.Session, err = c.SessionArgs(ctx).CommandSession(opts.Command, opts.Session); err != nil {
		return err
	}
	if opts.WorkingOn == "" {
		return usagef("register needs what the session works on (--working-on)")
	}
	if err := core.ValidateSession(opts.Session); err != nil {
		return usagef("%v", err)
	}
	if opts.Claim && opts.Space == "" {
		return usagef("register --claim needs a space (--space src/auth,tests/auth)")
	}
	svc := c.Service()
	if _, err := svc.Workspace(ctx); err != nil {
		return err
	}
	var provider string
	if opts.Provider == "" {
		provider = all.ProviderOf(opts.Session, svc.Identity(ctx).Agent)
	}
	started, err := svc.Register(ctx, opts.Session, session.Registration{WorkingOn: opts.WorkingOn, Provider: opts.Provider, AIVersion: opts.AIVersion,
		Space: opts.Space, TodoPresent: opts.TodoPresent, DefaultProvider: provider, AgentPID: opts.AgentPID, Agent: all.AgentOf(opts.Session), Claim: opts.Claim})
	if err != nil {
		if opts.AgentPID != 0 {
			err = fmt.Errorf("--agent-pid %d: %w", opts.AgentPID, err)
		}
		return err
	}
	return newPrinter(opts.IO, c).Registered(started, opts.Claim)
}
