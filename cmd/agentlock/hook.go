package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/hooks"
	"github.com/agentlock/agentlock/report"
)

// HookOptions are the inputs of agentlock hook.
type HookOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
	// Args is the whole command line, handed over with the payload when
	// the hook needs the etcd build (see workspace.Backends.NeedsEtcdBuild).
	Args []string

	Agent, Event string
}

func newCmdHook(f *Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{IO: f.IO, Config: f.Lenient, Args: f.Args}
	cmd := &cobra.Command{
		Use:     "hook <agent> <event>",
		Short:   "Run one agent hook: the stable command that generated hooks call",
		Example: `  echo '{"cwd":"/repo","session_id":"abc","tool_name":"Edit","tool_input":{"file_path":"/repo/a.go"}}' | agentlock hook claude pre-edit`,
		Args: func(cmd *cobra.Command, args []string) error {
			return hookLine(cobra.ExactArgs(2)(cmd, args))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent, opts.Event = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			err := hookRun(cmd.Context(), opts)
			if errors.Is(err, report.ErrUsage) {
				// An agent or event nobody knows.
				err = hookLine(err)
			}
			return err
		},
	}
	f.describe(cmd, hookLong)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return hookLine(cmdutil.FlagError(c, err)) })
	return cmd
}

// hookLong is agentlock hook's long description: the agents, and the form
// in which each one's pre-edit hook denies.
func hookLong() string {
	return `Run a hook for an agent harness (` + strings.Join(all.Names(), ", ") + `). The harness writes its JSON
payload on stdin. Events:

  pre-edit       take the locks of the files the tool is about to change, for the
                 session (all or none); when another session holds one, or a
                 file's lock cannot be checked, deny the edit with one line
                 saying why and what to do instead, in the form its harness
                 reads: ` + denyForms(all.Agents(), "                 ") + `
  session-start  register the session and tell the model its session id and who
                 holds what
  renew          renew every lock the session holds
  session-end    finish the session: mark it Finished, release all its locks

The session is AGENTLOCK_SESSION when set, else a wrapper script's, else the
harness's own id as <agent>-<id> (from its variable or the payload), else the
session recorded for the agent process the hook runs under (docs/identity.md).
session-start records that process: the nearest ancestor that is not a
shell. Outside a project set up with "agentlock init" (no .agent-registry
folder) and without AGENT_REGISTRY_* variables, every hook exits 0 at once.
pre-edit lets an edit through only where agentlock is not set up for its path
or the payload names no usable path; it denies an edit it could not check,
including while a setting is invalid (AGENTLOCK_TIMEOUT=-5, say: the reason
names the variable and its range). The other events always exit 0 and report
problems on stderr, an invalid setting included (they run with its default);
see docs/integrations/README.md for the whole policy.`
}

// hookLine makes err, a mistake in the hook's command line, a
// report.HookLineError: agentlock's own problem, never a denial.
func hookLine(err error) error {
	if err == nil {
		return nil
	}
	if !errors.Is(err, report.ErrUsage) {
		err = &report.UsageError{Err: err}
	}
	return &report.HookLineError{Err: err}
}

func hookRun(ctx context.Context, opts *HookOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	agent, ok := c.Agents.Lookup(opts.Agent)
	if !ok {
		for _, e := range c.AgentErrors {
			fmt.Fprintf(opts.IO.ErrOut, "agentlock: %v\n", e)
		}
		return usagef("unknown agent %q (known: %s)", opts.Agent, strings.Join(c.Agents.Names(), ", "))
	}
	if err := hooks.CheckEvent(opts.Event); err != nil {
		return err
	}
	// The payload is kept, so that a hook that needs the etcd build (a
	// path of a checkout on etcd, edited from outside it) hands it over.
	var payload bytes.Buffer
	in := opts.IO.In
	if in != nil {
		in = io.TeeReader(in, &payload)
	}
	res := hooks.Run(ctx, c.HookRequest(agent, opts.Event, in))
	if res.Deny != "" && c.Settings.Backends.NeedsEtcdBuild() {
		handedOver(handOver(thisProcess(opts.Args), payload.Bytes()))
	}
	if hooks.Respond(agent, res).Write(opts.IO.Out, opts.IO.ErrOut, agent.Name(), opts.Event) {
		return report.ErrDenied
	}
	return nil
}

// denyForms says how each agent's pre-edit hook denies (as each declares
// it: integrations.DenyFormer), agents of the same form together, for the
// help of agentlock hook: lines wrapped after the first, each starting
// with indent.
func denyForms(agents []integrations.Agent, indent string) string {
	var forms []string
	byForm := map[string][]string{}
	for _, a := range agents {
		f, ok := a.(integrations.DenyFormer)
		if !ok {
			continue
		}
		form := f.DenyForm()
		if _, seen := byForm[form]; !seen {
			forms = append(forms, form)
		}
		byForm[form] = append(byForm[form], a.Name())
	}
	var parts []string
	for _, form := range forms {
		names := byForm[form]
		list := names[0]
		if n := len(names); n > 1 {
			list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
		}
		parts = append(parts, "for "+list+", "+form)
	}
	parts = append(parts, "for an agent described by a manifest of yours, the form its [deny] names")
	return wrap(strings.Join(parts, "; "), indent, 84-len(indent))
}

// wrap breaks text into lines of at most width characters (a longer word
// stays whole), each line after the first starting with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case line+1+len(word) > width:
			b.WriteString("\n" + indent)
			line = 0
		default:
			b.WriteString(" ")
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
