package main

import (
	"fmt"
	"strings"
)

// Mode is one way the fleet coordinates. A lock-lifetime policy is one
// more line in Modes: a name, Hooks, and the settings (Env, InitArgs) that
// select it.
type Mode struct {
	// Name is the mode's name in -modes and in the table.
	Name string `json:"name"`
	// Doc says what the mode is, for the table's legend.
	Doc string `json:"doc"`
	// Hooks runs `agentlock init --agent <cli>` (plus InitArgs) for the
	// fleet's CLIs, and the agents run the hook command lines it wrote,
	// whatever they are at the time.
	Hooks    bool     `json:"hooks"`
	InitArgs []string `json:"init_args,omitempty"`
	// Env are settings (environment variables) that every process of the
	// run gets: init, the hooks, the model's agentlock commands.
	Env []string `json:"env,omitempty"`
	// Worktrees gives each agent a git worktree and branch of its own,
	// merged into main at the end.
	Worktrees bool `json:"worktrees"`
	// Lossless says that the mode claims to lose no update: the short
	// mode's tests hold it to that.
	Lossless bool `json:"lossless"`
	// Lifetime, in a mode with hooks, is the lifetime of the locks hooks
	// take (AGENTLOCK_HOOK_LOCKS: session or turn, docs/lock-lifetime.md);
	// empty keeps agentlock's default.
	Lifetime string `json:"lifetime,omitempty"`
	// HookWait, in a mode with hooks, sets the hook's wait for a lock about
	// to be freed (AGENTLOCK_HOOK_WAIT): "off" refuses at once, "knob" is
	// -hook-wait; empty keeps agentlock's default.
	HookWait string `json:"hook_wait,omitempty"`
}

// hookEnv is the policy on hook locks that every process of a run in m
// gets: the idle bound of k (agentlock's default scaled as the think time
// is), the lifetime and the hook's wait where m sets them.
func (m Mode) hookEnv(k Knobs) []string {
	if !m.Hooks {
		return nil
	}
	env := []string{"AGENTLOCK_HOOK_IDLE=" + k.HookIdle.String()}
	switch m.HookWait {
	case "off":
		env = append(env, "AGENTLOCK_HOOK_WAIT=off")
	case "knob":
		env = append(env, "AGENTLOCK_HOOK_WAIT="+k.HookWait.String())
	}
	if m.Lifetime != "" {
		env = append(env, "AGENTLOCK_HOOK_LOCKS="+m.Lifetime)
	}
	return env
}

// Modes lists every mode, in the order of the table.
func Modes() []Mode {
	return []Mode{
		{Name: "none", Doc: "no coordination: no hooks, one checkout"},
		{Name: "agentlock", Doc: "the hooks `agentlock init --agent <cli>` writes, as configured (the idle bound scaled: `-hook-idle`)", Hooks: true, Lossless: true},
		{Name: "session", Doc: "the hooks, their locks living until the session ends (`AGENTLOCK_HOOK_LOCKS=session`: agentlock before issue 36)", Hooks: true, Lossless: true, Lifetime: "session"},
		{Name: "turn", Doc: "the hooks, their locks freed at the turn's end or once unused for `-hook-idle` (`AGENTLOCK_HOOK_LOCKS=turn`), a refusal at once", Hooks: true, Lossless: true, Lifetime: "turn", HookWait: "off"},
		{Name: "turn-wait", Doc: "as `turn`, a hook waiting up to `-hook-wait` for locks their idle bound frees within it instead of refusing", Hooks: true, Lossless: true, Lifetime: "turn", HookWait: "knob"},
		{Name: "worktrees", Doc: "one git worktree per agent, no hooks, merged into main at the end (a conflict is resolved by redoing one side)", Worktrees: true, Lossless: true},
	}
}

// selectModes returns the modes named in a comma-separated list, in the
// list's order.
func selectModes(list string) ([]Mode, error) {
	all := Modes()
	var out []Mode
	for _, name := range splitList(list) {
		found := false
		for _, m := range all {
			if m.Name == name {
				out, found = append(out, m), true
				break
			}
		}
		if !found {
			var names []string
			for _, m := range all {
				names = append(names, m.Name)
			}
			return nil, fmt.Errorf("-modes: unknown mode %q (known: %s)", name, strings.Join(names, ", "))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-modes names no mode")
	}
	return out, nil
}
