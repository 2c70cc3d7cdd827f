package main

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
)

// RegisterOptions are the inputs of agentlock register.
type RegisterOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Session                                            string
	Provider, AIVersion, WorkingOn, Space, TodoPresent string
}

func newCmdRegister(f *Factory, runF func(*RegisterOptions) error) *cobra.Command {
	opts := &RegisterOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "register <session> <provider> <ai_version> <working_on> [space,...] [todo_present,...]",
		Short: "Register a session in registry.md (status OnWorking)",
		Long: `Add the session to the registry, or replace its entry when the id is already
there, with status OnWorking and the current time as its start. Lists are
comma-separated. Flags may replace the positional arguments.`,
		Example: `  agentlock register claude-1 anthropic claude-opus-4 "refactor auth" src/auth,tests/auth "split login()"
  agentlock register codex-2 --provider openai --ai-version gpt-5-codex --working-on "fix CI"`,
		Args: cobra.RangeArgs(1, 6),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Session = args[0]
			positional := []*string{&opts.Provider, &opts.AIVersion, &opts.WorkingOn, &opts.Space, &opts.TodoPresent}
			for i, arg := range args[1:] {
				*positional[i] = arg
			}
			if runF != nil {
				return runF(opts)
			}
			return registerRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Provider, "provider", "", "vendor of the agent (anthropic, openai, google, moonshot, ...)")
	fl.StringVar(&opts.AIVersion, "ai-version", "", "model or CLI version")
	fl.StringVar(&opts.WorkingOn, "working-on", "", "what the session works on, in a sentence")
	fl.StringVar(&opts.Space, "space", "", "comma-separated paths or areas the session works in")
	fl.StringVar(&opts.TodoPresent, "todo-present", "", "comma-separated tasks in progress")
	return cmd
}

func registerRun(opts *RegisterOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.Provider == "" || opts.AIVersion == "" || opts.WorkingOn == "" {
		return usagef("register needs a session, a provider, an AI version and what it works on")
	}
	if err := core.ValidateSession(opts.Session); err != nil {
		return usagef("%v", err)
	}
	ws, err := c.workWorkspace()
	if err != nil {
		return err
	}
	reg := ws.Registry()
	s, err := ws.Register(core.Session{
		SessionID: opts.Session, Provider: opts.Provider, AIVersion: opts.AIVersion, WorkingOn: opts.WorkingOn,
		Space: splitList(opts.Space), Todo: core.Todo{Present: splitList(opts.TodoPresent)},
	})
	if err != nil {
		return err
	}
	return printSession(opts.IO, c, reg, s, "registered")
}
