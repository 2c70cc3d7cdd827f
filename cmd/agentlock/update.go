package main

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/workspace"
)

// UpdateOptions are the inputs of agentlock update. Only the fields in
// Changed are applied.
type UpdateOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string
	Args    []string // [session] [working_on], resolved by updateRun
	Session string
	// Text fields and comma-separated lists, by flag name.
	WorkingOn, Status, Provider, AIVersion           string
	Space, TodoPast, TodoPresent, TodoFuture, Issues string // Issues is text
	Changed                                          map[string]bool
}

func newCmdUpdate(f *Factory, runF func(*UpdateOptions) error) *cobra.Command {
	opts := &UpdateOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "update [session] [working_on] [--flag value ...]",
		Short: "Change some fields of a registered session",
		Long: `Change only the fields given; the others stay as they are. Each todo list
(--todo-past, --todo-present, --todo-future) is replaced on its own, leaving
the other two unchanged. Lists are comma-separated; an empty value empties
the list. An unknown session changes nothing (exit 1).

Without a session, the session known here (see agentlock whoami). With one
argument and a session known here, the argument is the working_on text
unless it is that session's id; with none known, it is the session (the
original form). A typed id that is not the known session is refused.`,
		Example: `  agentlock update "now writing tests"
  agentlock update --todo-present "write tests" --todo-past "split login()"
  agentlock update claude-1 "now writing tests"`,
		Args: cobra.MaximumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Args, opts.Changed = cmd.CommandPath(), args, map[string]bool{}
			cmd.Flags().Visit(func(fl *pflag.Flag) {
				if fl.Name != "session" && fl.Name != "json" && fl.Name != "timeout" {
					opts.Changed[fl.Name] = true
				}
			})
			if runF != nil {
				return runF(opts)
			}
			return updateRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.WorkingOn, "working-on", "", "what the session works on")
	fl.StringVar(&opts.Status, "status", "", "status (OnWorking, Finished, or another word)")
	fl.StringVar(&opts.Space, "space", "", "comma-separated paths or areas")
	fl.StringVar(&opts.TodoPast, "todo-past", "", "comma-separated tasks done")
	fl.StringVar(&opts.TodoPresent, "todo-present", "", "comma-separated tasks in progress")
	fl.StringVar(&opts.TodoFuture, "todo-future", "", "comma-separated tasks to do")
	fl.StringVar(&opts.Issues, "issues", "", "problems met, as text (replaces the previous text)")
	fl.StringVar(&opts.Provider, "provider", "", "vendor of the agent")
	fl.StringVar(&opts.AIVersion, "ai-version", "", "model or CLI version")
	return cmd
}

// updateArgs splits update's positional arguments into the session and the
// working_on text (see the command's help).
func updateArgs(ctx context.Context, opts *UpdateOptions, c *config) error {
	session, text, hasText, err := c.SessionArgs(ctx).SessionAndText(opts.Command, opts.Args)
	if err != nil {
		return err
	}
	opts.Session = session
	if hasText {
		if opts.Changed["working-on"] {
			return usagef("working_on given twice (argument and --working-on)")
		}
		opts.WorkingOn, opts.Changed["working-on"] = text, true
	}
	if err := c.SessionArgs(ctx).FlagConflict(opts.Command); err != nil {
		return err
	}
	if opts.Session == "" {
		return sessionarg.ErrNoSession()
	}
	if len(opts.Changed) == 0 {
		return usagef("nothing to update: give a working_on argument or a flag")
	}
	return nil
}

func updateRun(ctx context.Context, opts *UpdateOptions) error {
	c, _, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	if err := updateArgs(ctx, opts, c); err != nil {
		return err
	}
	edit := workspace.SessionEdit{}
	for name, value := range map[string]string{"working-on": opts.WorkingOn, "status": opts.Status, "provider": opts.Provider,
		"ai-version": opts.AIVersion, "issues": opts.Issues, "space": opts.Space, "todo-past": opts.TodoPast,
		"todo-present": opts.TodoPresent, "todo-future": opts.TodoFuture} {
		if opts.Changed[name] {
			edit[name] = value
		}
	}
	changed, err := c.Service().Update(ctx, opts.Session, edit)
	if err != nil {
		return err
	}
	return out.Changed(changed, "updated")
}
