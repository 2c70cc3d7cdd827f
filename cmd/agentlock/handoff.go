package main

import (
	"github.com/spf13/cobra"
)

// HandoffOptions are the inputs of agentlock handoff.
type HandoffOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Session, Notes string
}

func newCmdHandoff(f *Factory, runF func(*HandoffOptions) error) *cobra.Command {
	opts := &HandoffOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:     "handoff <session> <path>",
		Short:   "Record a handoff note (a file) for the next agent",
		Example: `  agentlock handoff claude-1 docs/handoff/claude-1.md`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Session, opts.Notes = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return handoffRun(opts)
		},
	}
}

func handoffRun(opts *HandoffOptions) error {
	c, ws, err := workConfig(opts.Config)
	if err != nil {
		return err
	}
	reg := ws.Registry()
	s, err := reg.AddHandoffRef(opts.Session, opts.Notes)
	if err != nil {
		return err
	}
	return printSession(opts.IO, c, reg, s, "handoff recorded for")
}
