package main

import (
	"context"

	"github.com/spf13/cobra"
)

// ShowOptions are the inputs of agentlock show.
type ShowOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdShow(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	opts := &ShowOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "show",
		Short: "Show the registry: who works on what",
		Long: `Print every session of the registry with all its fields (the thirteen columns
of agent-registry 0.2's table), or with --json one object per session. Every
value is printed whole: long ones wrap onto indented lines within 80 columns,
a long session id stands on its own line, so that it can be copied into
finish --session. A registry that does not exist yet shows as empty.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return showRun(cmd.Context(), opts)
		},
	}
}

func showRun(ctx context.Context, opts *ShowOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	shown, err := c.Service().Show(ctx)
	if err != nil {
		return err
	}
	return newPrinter(opts.IO, c).Registry(shown)
}
