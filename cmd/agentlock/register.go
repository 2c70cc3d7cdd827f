package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/agents/all"
	"github.com/agentlock/agentlock/internal/identity"
	"github.com/agentlock/agentlock/internal/procs"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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
comma-separated. Flags may replace the positional arguments.

With --claim, the session's space entries are then taken as area locks (each
a folder and every path below it), all of them or none, and written back as
their real paths ending in "/"; show and the registry's table mark them
"(area)" while they are held. A refusal (exit 1) names the holders; the
session stays registered.

Without a session, the session known here (see agentlock whoami); a typed id
that is not that session is refused. The provider defaults to the agent's
(from the session's prefix: claude-, codex-, gemini-, kimi-), and to "human"
for a session of no known agent (a person's id such as demo-session); the AI
version to "unknown"; what the session works on is required.`,
		Example: `  agentlock register --working-on "refactor auth"
  agentlock register claude-1 anthropic claude-opus-4 "refactor auth" src/auth,tests/auth "split login()"
  agentlock register codex-2 --provider openai --ai-version gpt-5-codex --working-on "fix CI"
  agentlock register --working-on "refactor auth" --space src/auth,tests/auth --claim`,
		Args: cobra.MaximumNArgs(6),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = cmd.CommandPath()
			positional := []*string{&opts.Session, &opts.Provider, &opts.AIVersion, &opts.WorkingOn, &opts.Space, &opts.TodoPresent}
			for i, arg := range args {
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
	if opts.Session, err = commandSession(opts.Command, c, opts.Session); err != nil {
		return err
	}
	session := opts.Session
	if opts.WorkingOn == "" {
		return usagef("register needs what the session works on (--working-on)")
	}
	if err := core.ValidateSession(opts.Session); err != nil {
		return usagef("%v", err)
	}
	ws, err := c.workWorkspace(ctx)
	if err != nil {
		return err
	}
	if opts.AgentPID != 0 {
		if err := recordAgent(ws, opts.AgentPID, session, c.Settings.Now); err != nil {
			return err
		}
	}
	reg := ws.Registry()
	s, err := reg.Update(ctx, session, func(old *core.Session) { opts.apply(old) })
	if errors.Is(err, core.ErrNoSession) {
		if opts.Provider == "" {
			opts.Provider = providerOf(session, c.Identity.Record.Agent)
		}
		if opts.Provider == "" {
			// A session of no known agent is a person's (or a script's).
			opts.Provider = humanProvider
		}
		if opts.AIVersion == "" {
			opts.AIVersion = "unknown"
		}
		// A new entry lists the locks the session already holds (a
		// hook may have taken some before it registered).
		s, err = ws.Register(ctx, core.Session{
			SessionID: opts.Session, Provider: opts.Provider, AIVersion: opts.AIVersion, WorkingOn: opts.WorkingOn,
			Space: splitList(opts.Space), Todo: core.Todo{Present: splitList(opts.TodoPresent)},
		})
	}
	if err != nil {
		return err
	}
	if opts.Claim {
		return claimSpace(ctx, opts.IO, c, ws, s)
	}
	return printSession(opts.IO, c, reg, s, "registered")
}

// claimSpace takes the space entries of the registered session s as area
// locks, all or none, writes them back to its space as the areas' paths
// (so that show and the table mark them), and reports the session and
// each lock.
func claimSpace(ctx context.Context, io *IOStreams, c *config, ws *workspace.Workspace, s core.Session) error {
	out := newPrinter(io, c)
	if len(s.Space) == 0 {
		return usagef("register --claim needs a space (--space src/auth,tests/auth)")
	}
	areas := make([]string, len(s.Space))
	for i, e := range s.Space {
		if !strings.HasSuffix(e, "/") {
			e += "/"
		}
		areas[i] = e
	}
	leases, warning, err := ws.Acquire(ctx, areas, s.SessionID)
	if errors.Is(err, core.ErrLocked) {
		fmt.Fprintln(io.ErrOut, report.Linef("agentlock: registered %s, but its space was not claimed:", s.SessionID))
		return reportRefusal(out, areas, err, 0)
	}
	if err != nil {
		return fmt.Errorf("registered %s, but its space was not claimed: %w", s.SessionID, err)
	}
	warn(io, warning)
	reg := ws.Registry()
	claimed, err := reg.Update(ctx, s.SessionID, func(old *core.Session) {
		old.Space = old.Space[:0]
		for _, l := range leases {
			old.Space = append(old.Space, l.Path)
		}
	})
	if err != nil {
		return err
	}
	if err := printSession(io, c, reg, claimed, "registered"); err != nil {
		return err
	}
	for _, l := range leases {
		if err := out.emit(report.Acquired(l)); err != nil {
			return err
		}
	}
	return nil
}

// apply re-registers an existing entry: working again, with the fields
// given changed and the others (its start, held paths, todo lists, notes)
// kept — the session-start hook may have registered it already.
func (opts *RegisterOptions) apply(s *core.Session) {
	s.Status = core.StatusWorking
	s.WorkingOn = opts.WorkingOn
	for _, f := range []struct{ value, dst *string }{{&opts.Provider, &s.Provider}, {&opts.AIVersion, &s.AIVersion}} {
		if *f.value != "" {
			*f.dst = *f.value
		}
	}
	if opts.Space != "" {
		s.Space = splitList(opts.Space)
	}
	if opts.TodoPresent != "" {
		s.Todo.Present = splitList(opts.TodoPresent)
	}
}

// humanProvider is the provider of a new session of no known agent.
const humanProvider = "human"

// providerOf returns the provider of the agent a session belongs to, from
// the agent named by its record or its id's prefix ("claude-..."); "" when
// neither names a known agent.
func providerOf(session, agent string) string {
	if a, ok := all.Lookup(agent); ok {
		return a.Provider()
	}
	if name, _, ok := strings.Cut(session, "-"); ok {
		if a, ok := all.Lookup(name); ok {
			return a.Provider()
		}
	}
	return ""
}

// recordAgent records process pid as the agent process of session, in the
// workspace's agent records, as a wrapper script: commands run under it
// find the session by their ancestry even where AGENTLOCK_SESSION was
// dropped from their environment.
func recordAgent(ws *workspace.Workspace, pid int, session string, now func() time.Time) error {
	p, err := procs.Get(pid)
	if err != nil {
		return fmt.Errorf("--agent-pid: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	_, err = identity.Write(identity.Dir(ws.Home), p, session, agentOf(session), identity.KindWrapper, now())
	return err
}

// agentOf returns the agent name of a session id's prefix, or "".
func agentOf(session string) string {
	if name, _, ok := strings.Cut(session, "-"); ok {
		if _, ok := all.Lookup(name); ok {
			return name
		}
	}
	return ""
}
