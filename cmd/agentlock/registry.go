package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/templates"
)

// registryFor returns the registry that covers a real path (the working
// directory for commands without a path): AGENT_REGISTRY_PATH, else
// registry.md in the home.
func (c config) registryFor(realPath string) (*core.Registry, error) {
	path := c.Registry
	if path == "" {
		home, err := c.homeFor(realPath)
		if err != nil {
			return nil, err
		}
		path = filepath.Join(home, "registry.md")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("registry path: %w", err)
	}
	protocol := func() (string, error) { return templates.Protocol(templates.ProtocolData{Bin: "agentlock"}) }
	return &core.Registry{Path: abs, Protocol: protocol}, nil
}

// workRegistry is registryFor the working directory.
func (c config) workRegistry() (*core.Registry, error) {
	wd, err := workDir()
	if err != nil {
		return nil, err
	}
	return c.registryFor(wd)
}

// splitList reads a comma-separated list flag or argument; blanks dropped.
func splitList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// sessionRecord is the JSON line printed for a session.
type sessionRecord struct {
	core.Session
	Registry string `json:"registry"`
}

func printSession(f *factory, c config, reg *core.Registry, s core.Session, verb string) error {
	return emit(f, c, sessionRecord{Session: s, Registry: reg.Path},
		fmt.Sprintf("%s %s (%s) in %s", verb, s.SessionID, s.Status, reg.Path))
}

// syncDoNotTouch mirrors a lock operation into the session's do_not_touch.
// The lock files are authoritative: a registry problem is only a warning.
func syncDoNotTouch(f *factory, c config, session string, paths []string, hold bool) {
	if len(paths) == 0 {
		return
	}
	reg, err := c.registryFor(paths[0])
	if err == nil {
		if hold {
			_, err = reg.HoldPaths(session, paths...)
		} else {
			_, err = reg.DropPaths(session, paths...)
		}
	}
	if err != nil {
		fmt.Fprintf(f.ErrOut, "agentlock: warning: the lock operation succeeded, but the registry was not updated: %v\n", err)
	}
}

type registerOptions struct {
	provider, aiVersion, workingOn, space, todoPresent string
}

func newRegisterCmd(f *factory) *cobra.Command {
	opts := registerOptions{}
	cmd := &cobra.Command{
		Use:   "register <session> <provider> <ai_version> <working_on> [space,...] [todo_present,...]",
		Short: "Register a session in registry.md (status OnWorking)",
		Long: `Add the session to the registry, or replace its entry when the id is already
there, with status OnWorking and the current time as its start. Lists are
comma-separated. Flags may replace the positional arguments.`,
		Example: `  agentlock register claude-1 anthropic claude-opus-4 "refactor auth" src/auth,tests/auth "split login()"
  agentlock register codex-2 --provider openai --ai-version gpt-5-codex --working-on "fix CI"`,
		Args: cobra.RangeArgs(1, 6),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return registerRun(f, cmd, args, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.provider, "provider", "", "vendor of the agent (anthropic, openai, google, moonshot, ...)")
	fl.StringVar(&opts.aiVersion, "ai-version", "", "model or CLI version")
	fl.StringVar(&opts.workingOn, "working-on", "", "what the session works on, in a sentence")
	fl.StringVar(&opts.space, "space", "", "comma-separated paths or areas the session works in")
	fl.StringVar(&opts.todoPresent, "todo-present", "", "comma-separated tasks in progress")
	return cmd
}

func registerRun(f *factory, cmd *cobra.Command, args []string, opts registerOptions) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	positional := []*string{nil, &opts.provider, &opts.aiVersion, &opts.workingOn, &opts.space, &opts.todoPresent}
	for i := 1; i < len(args); i++ {
		*positional[i] = args[i]
	}
	if opts.provider == "" || opts.aiVersion == "" || opts.workingOn == "" {
		return usagef("register needs a session, a provider, an AI version and what it works on")
	}
	if err := core.ValidateSession(args[0]); err != nil {
		return usagef("%v", err)
	}
	reg, err := c.workRegistry()
	if err != nil {
		return err
	}
	s, err := reg.Register(core.Session{
		SessionID: args[0], Provider: opts.provider, AIVersion: opts.aiVersion, WorkingOn: opts.workingOn,
		Space: splitList(opts.space), Todo: core.Todo{Present: splitList(opts.todoPresent)},
	})
	if err != nil {
		return err
	}
	return printSession(f, c, reg, s, "registered")
}

type updateOptions struct {
	workingOn, status, space, todoPast, todoPresent, todoFuture, issues, provider, aiVersion string
}

func newUpdateCmd(f *factory) *cobra.Command {
	opts := updateOptions{}
	cmd := &cobra.Command{
		Use:   "update <session> [working_on] [--flag value ...]",
		Short: "Change some fields of a registered session",
		Long: `Change only the fields given; the others stay as they are. Each todo list
(--todo-past, --todo-present, --todo-future) is replaced on its own, leaving
the other two unchanged. Lists are comma-separated; an empty value empties
the list. An unknown session changes nothing (exit 1).`,
		Example: `  agentlock update claude-1 "now writing tests"
  agentlock update claude-1 --todo-present "write tests" --todo-past "split login()"`,
		Args: cobra.RangeArgs(1, 2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return updateRun(f, cmd, args, opts)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.workingOn, "working-on", "", "what the session works on")
	fl.StringVar(&opts.status, "status", "", "status (OnWorking, Finished, or another word)")
	fl.StringVar(&opts.space, "space", "", "comma-separated paths or areas")
	fl.StringVar(&opts.todoPast, "todo-past", "", "comma-separated tasks done")
	fl.StringVar(&opts.todoPresent, "todo-present", "", "comma-separated tasks in progress")
	fl.StringVar(&opts.todoFuture, "todo-future", "", "comma-separated tasks to do")
	fl.StringVar(&opts.issues, "issues", "", "comma-separated problems met")
	fl.StringVar(&opts.provider, "provider", "", "vendor of the agent")
	fl.StringVar(&opts.aiVersion, "ai-version", "", "model or CLI version")
	return cmd
}

func updateRun(f *factory, cmd *cobra.Command, args []string, opts updateOptions) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	if len(args) == 2 {
		if cmd.Flags().Changed("working-on") {
			return usagef("working_on given twice (argument and --working-on)")
		}
		opts.workingOn = args[1]
	}
	changed := cmd.Flags().Changed
	setText := func(name string, dst *string, v string) {
		if changed(name) || (name == "working-on" && len(args) == 2) {
			*dst = v
		}
	}
	setList := func(name string, dst *[]string, v string) {
		if changed(name) {
			*dst = splitList(v)
		}
	}
	if cmd.Flags().NFlag() == 0 && len(args) == 1 {
		return usagef("nothing to update: give a working_on argument or a flag")
	}
	reg, err := c.workRegistry()
	if err != nil {
		return err
	}
	s, err := reg.Update(args[0], func(s *core.Session) {
		setText("working-on", &s.WorkingOn, opts.workingOn)
		setText("status", &s.Status, opts.status)
		setText("provider", &s.Provider, opts.provider)
		setText("ai-version", &s.AIVersion, opts.aiVersion)
		setList("space", &s.Space, opts.space)
		setList("todo-past", &s.Todo.Past, opts.todoPast)
		setList("todo-present", &s.Todo.Present, opts.todoPresent)
		setList("todo-future", &s.Todo.Future, opts.todoFuture)
		setList("issues", &s.Issues, opts.issues)
	})
	if err != nil {
		return err
	}
	return printSession(f, c, reg, s, "updated")
}

func newFinishCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "finish <session>",
		Short: "Mark a session Finished and release every lock it owns",
		Long: `Mark the session Finished, empty its do_not_touch, and release every lock
that the session owns in the lock directory — found by owner, including paths
it never listed — and never a lock of another session.`,
		Example: `  agentlock finish claude-1`,
		Args:    cobra.ExactArgs(1),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return finishRun(f, cmd, args[0])
		}),
	}
}

// finishRecord is the JSON line of a finish.
type finishRecord struct {
	sessionRecord
	Released []string `json:"released"`
}

func finishRun(f *factory, cmd *cobra.Command, id string) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	if err := core.ValidateSession(id); err != nil {
		return usagef("%v", err)
	}
	wd, err := workDir()
	if err != nil {
		return err
	}
	reg, err := c.registryFor(wd)
	if err != nil {
		return err
	}
	s, err := reg.Finish(id)
	if err != nil {
		return err
	}
	dir, err := c.lockDirFor(wd)
	if err != nil {
		return err
	}
	released, relErr := c.locker().ReleaseSession(dir, id)
	rec := finishRecord{sessionRecord: sessionRecord{Session: s, Registry: reg.Path}, Released: []string{}}
	for _, st := range released {
		rec.Released = append(rec.Released, lockName(st))
	}
	human := fmt.Sprintf("finished %s; released %d lock(s)", id, len(released))
	for _, p := range rec.Released {
		human += "\n  released " + p
	}
	if err := emit(f, c, rec, human); err != nil {
		return err
	}
	return relErr
}

func newHandoffCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "handoff <session> <path>",
		Short:   "Record a handoff note (a file) for the next agent",
		Example: `  agentlock handoff claude-1 docs/handoff/claude-1.md`,
		Args:    cobra.ExactArgs(2),
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			c, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			reg, err := c.workRegistry()
			if err != nil {
				return err
			}
			s, err := reg.AddHandoffRef(args[0], args[1])
			if err != nil {
				return err
			}
			return printSession(f, c, reg, s, "handoff recorded for")
		}),
	}
}

func newShowCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the registry: who works on what",
		Long: `Print the sessions of the registry as a table, or with --json one object per
session. A registry that does not exist yet shows as empty.`,
		Args: cobra.NoArgs,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return showRun(f, cmd)
		}),
	}
}

func showRun(f *factory, cmd *cobra.Command) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	reg, err := c.workRegistry()
	if err != nil {
		return err
	}
	doc, err := reg.Load()
	if err != nil {
		return err
	}
	if c.JSON {
		for _, s := range doc.Agents {
			if err := writeJSON(f.Out, s); err != nil {
				return err
			}
		}
		return nil
	}
	if len(doc.Agents) == 0 {
		_, err := fmt.Fprintf(f.Out, "no sessions in %s\n", reg.Path)
		return err
	}
	w := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SESSION\tPROVIDER\tSTATUS\tWORKING ON\tDO NOT TOUCH")
	for _, s := range doc.Agents {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.SessionID, s.Provider, s.Status,
			oneLine(s.WorkingOn), oneLine(strings.Join(s.DoNotTouch, ", ")))
	}
	return w.Flush()
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
}
