package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// agentSpecEnv is the environment variable that makes the simulator's
// binary (or its test binary) an agent: it holds the agent's spec as JSON.
const agentSpecEnv = "FLEET_AGENT_SPEC"

// agentSpec is everything one agent process needs: who it is, where it
// works, what it does, and the environment its CLI's hooks and shell get.
type agentSpec struct {
	Index int    `json:"index"`
	CLI   string `json:"cli"`
	// Dir is the agent's working folder: the repository, or its worktree.
	Dir   string   `json:"dir"`
	Home  string   `json:"home"`
	Files []string `json:"files"` // relative to Dir; the first Knobs.Hot are hot
	Knobs Knobs    `json:"knobs"`
	// Env is the environment of every process the agent starts (PATH,
	// HOME, TMPDIR, LANG, git's identity, the mode's settings), before the
	// CLI adds its own variables.
	Env []string `json:"env"`
	// Hooks says that init configured hooks for the CLI: its settings file
	// must then exist.
	Hooks bool `json:"hooks"`
	// Commit makes the agent commit its work at each session's end (one
	// worktree per agent).
	Commit bool `json:"commit"`
	// Rendezvous is the folder of the first-read rendezvous ("" without).
	Rendezvous string `json:"rendezvous,omitempty"`
}

// record is one line of an agent's log, which the simulator reads back:
// a hook process, an accepted write, a refusal, the model's reaction.
type record struct {
	Kind    string `json:"kind"` // ready, hook, read, write, refusal, redo, told, wait, abandon
	T       int64  `json:"t"`    // wall clock at the end, unix nanoseconds
	Agent   int    `json:"agent"`
	Sub     int    `json:"sub,omitempty"` // the sub-agent, 0 for the main thread
	Session string `json:"session,omitempty"`
	File    string `json:"file,omitempty"`
	Token   string `json:"token,omitempty"`
	Event   string `json:"event,omitempty"`
	Tool    string `json:"tool,omitempty"`
	Took    int64  `json:"took,omitempty"` // nanoseconds
	Exit    int    `json:"exit,omitempty"`
	Timeout bool   `json:"timeout,omitempty"`
	Deny    bool   `json:"deny,omitempty"`
	By      string `json:"by,omitempty"`    // refusal: "hook" or "cli"
	Class   string `json:"class,omitempty"` // refusal: "stale", "held" or "other"
	Reason  string `json:"reason,omitempty"`
	Waited  int64  `json:"waited,omitempty"` // write: nanoseconds since its first refusal
	Tries   int    `json:"tries,omitempty"`
}

// session is one session of the agent's CLI.
type session struct {
	cli     *cli
	id      string
	n       int
	dir     string
	home    string
	env     []string
	hooks   hookConfig
	prompt  string
	turn    int
	callID  string
	callSeq int
	// agentID is the sub-agent's id ("" in the main thread).
	agentID string
}

func (s *session) toolUseID() string { return s.callID }
func (s *session) turnID() string    { return fmt.Sprintf("%s-turn-%d", s.id[:8], s.turn) }

// edit is one change the model makes: a file, the line it adds (its
// token), and what it read of the file.
type edit struct {
	file         string // relative to the agent's folder
	token        string
	base         []byte
	read         bool
	stale        bool // the model was told the file changed: it reads it again
	tries        int  // refusals so far
	firstRefused time.Time
}

// agent is one thread of an agent process at work: its main thread, or
// one of its sub-agents (-subagents), which share its session and log.
type agent struct {
	spec  agentSpec
	k     Knobs
	cli   *cli
	rng   *rand.Rand
	out   *logger
	sub   int     // 0: the main thread; n: the n-th sub-agent
	open  []*edit // edits read and not yet written, in the current turn
	first bool    // the first read is still to come (rendezvous)
}

// logger writes an agent process's log, one record a line, for all its
// threads.
type logger struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// runAgent is the agent mode of the binary: it reads its spec (from the
// environment), says it is ready, waits for stdin to close (the start
// barrier of the whole fleet) and works, logging to stdout, within the
// run's deadline.
func runAgent(ctx context.Context, specJSON string, stdin io.Reader, stdout io.Writer) error {
	var spec agentSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("agent spec: %w", err)
	}
	if spec.Knobs.Deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, spec.Knobs.Deadline)
		defer cancel()
	}
	c := clis()[spec.CLI]
	if c == nil {
		return fmt.Errorf("agent %d: unknown CLI %q", spec.Index, spec.CLI)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	a := &agent{spec: spec, k: spec.Knobs, cli: c, out: &logger{enc: json.NewEncoder(w)}, first: true,
		rng: rand.New(rand.NewPCG(uint64(spec.Knobs.Seed), uint64(spec.Index)))}
	a.log(record{Kind: "ready"})
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := io.Copy(io.Discard, stdin); err != nil {
		return fmt.Errorf("agent %d: wait for the start: %w", spec.Index, err)
	}
	hooks, err := loadHooks(c, spec.Dir)
	if err != nil {
		return err
	}
	if spec.Hooks && len(hooks) == 0 {
		return fmt.Errorf("agent %d: init configured no hooks in %s", spec.Index, filepath.Join(spec.Dir, c.settings))
	}
	for n := range spec.Knobs.Sessions {
		if err := a.session(ctx, n, hooks); err != nil {
			return fmt.Errorf("agent %d (%s), session %d: %w", spec.Index, c.name, n, err)
		}
	}
	return nil
}

func (a *agent) log(r record) {
	r.Agent, r.Sub, r.T = a.spec.Index, a.sub, time.Now().UnixNano()
	a.out.mu.Lock()
	defer a.out.mu.Unlock()
	_ = a.out.enc.Encode(r) // a broken stdout shows as a missing log, which the simulator reports
}

// session runs one session of the CLI: its start, its turns, its end (and,
// in a worktree, a commit of its work first).
func (a *agent) session(ctx context.Context, n int, hooks hookConfig) error {
	s := &session{cli: a.cli, id: a.uuid(), n: n, dir: a.spec.Dir, home: a.spec.Home, env: a.spec.Env, hooks: hooks}
	if err := a.fire(ctx, s, call{event: a.cli.ev.sessionStart, kind: "sessionStart"}); err != nil {
		return err
	}
	for t := range a.k.Turns {
		s.turn = t
		edits := a.plan(s, t)
		var names []string
		for _, e := range edits {
			names = append(names, e.file)
		}
		s.prompt = "Add your line to " + strings.Join(names, ", ") + "."
		if err := a.fire(ctx, s, call{event: a.cli.ev.turnStart, kind: "turnStart"}); err != nil {
			return err
		}
		if err := a.work(ctx, s, edits); err != nil {
			return err
		}
		if err := a.fire(ctx, s, call{event: a.cli.ev.turnEnd, kind: "turnEnd"}); err != nil {
			return err
		}
	}
	if a.spec.Commit {
		msg := fmt.Sprintf("agent %d session %d", a.spec.Index, n)
		if _, _, err := a.shell(ctx, s, "git add -A && { git diff --cached --quiet || git commit -q -m "+shellQuote(msg)+"; }"); err != nil {
			return err
		}
	}
	return a.fire(ctx, s, call{event: a.cli.ev.sessionEnd, kind: "sessionEnd"})
}

// work makes a turn's edits: in the main thread, or shared out among
// sub-agents working at the same time in the session, each started and
// stopped with the CLI's sub-agent events.
func (a *agent) work(ctx context.Context, s *session, edits []*edit) error {
	if a.k.Subagents == 0 {
		return a.turn(ctx, s, edits)
	}
	errs := make([]error, a.k.Subagents)
	var wg sync.WaitGroup
	for i := range a.k.Subagents {
		sub := &agent{spec: a.spec, k: a.k, cli: a.cli, out: a.out, sub: i + 1, first: a.first,
			rng: rand.New(rand.NewPCG(uint64(a.k.Seed), uint64(a.spec.Index)<<16|uint64(s.n)<<8|uint64(i+1)))}
		ss := *s
		ss.agentID, ss.callSeq = fmt.Sprintf("%016x", sub.rng.Uint64()), 0
		var mine []*edit
		for j := i; j < len(edits); j += a.k.Subagents {
			mine = append(mine, edits[j])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = sub.subagent(ctx, &ss, mine)
		}()
	}
	wg.Wait()
	a.first = false
	return errors.Join(errs...)
}

// subagent is one sub-agent's life: its start, its edits, its stop.
func (a *agent) subagent(ctx context.Context, s *session, edits []*edit) error {
	if err := a.fire(ctx, s, call{event: a.cli.ev.subagentStart, kind: "subagentStart"}); err != nil {
		return err
	}
	if err := a.turn(ctx, s, edits); err != nil {
		return err
	}
	return a.fire(ctx, s, call{event: a.cli.ev.subagentStop, kind: "subagentStop"})
}

// plan chooses the files of one turn (Edits for each thread that works
// in it), distinct while there are enough, each from the hot set with the
// chance HotShare.
func (a *agent) plan(s *session, t int) []*edit {
	hot, cold := a.spec.Files[:a.k.Hot], a.spec.Files[a.k.Hot:]
	taken := map[string]bool{}
	pick := func(from []string) string {
		var free []string
		for _, f := range from {
			if !taken[f] {
				free = append(free, f)
			}
		}
		if len(free) == 0 {
			return ""
		}
		return free[a.rng.IntN(len(free))]
	}
	var edits []*edit
	for e := range a.k.Edits * max(1, a.k.Subagents) {
		first, second := cold, hot
		if a.rng.Float64() < a.k.HotShare {
			first, second = hot, cold
		}
		f := pick(first)
		if f == "" {
			f = pick(second)
		}
		if f == "" { // more edits than files: a file twice in one turn
			f = a.spec.Files[a.rng.IntN(len(a.spec.Files))]
		}
		taken[f] = true
		token := fmt.Sprintf("fleet-token a%02d s%02d t%02d e%02d %016x", a.spec.Index, s.n, t, e, a.rng.Uint64())
		edits = append(edits, &edit{file: f, token: token})
	}
	return edits
}

// turn makes the turn's edits. A refused write is acted on as a model acts
// on the reason: told the file changed, it reads it again and redoes the
// change at once; told to wait with a command, it may run it; otherwise it
// works on its other files and comes back to this one, until it succeeds
// or has been refused MaxTries times.
func (a *agent) turn(ctx context.Context, s *session, edits []*edit) error {
	queue := append([]*edit{}, edits...)
	var back []*edit
	a.open = nil
	for len(queue)+len(back) > 0 {
		var e *edit
		if len(queue) > 0 {
			e, queue = queue[0], queue[1:]
		} else {
			e, back = back[0], back[1:]
			if err := a.pause(ctx, a.k.Step); err != nil {
				return err
			}
		}
		done, err := a.attempt(ctx, s, e)
		if err != nil {
			return err
		}
		switch {
		case done:
			a.close(e)
		case a.k.MaxTries > 0 && e.tries >= a.k.MaxTries:
			a.close(e)
			a.log(record{Kind: "abandon", Session: s.id, File: e.file, Token: e.token, Tries: e.tries})
		default:
			back = append(back, e)
		}
	}
	return nil
}

// close takes e off the edits the model keeps in mind.
func (a *agent) close(e *edit) {
	for i, o := range a.open {
		if o == e {
			a.open = append(a.open[:i], a.open[i+1:]...)
			return
		}
	}
}

// attempt makes one attempt at e: read when needed, think, write. It
// reports whether the write was accepted; false means the model put the
// edit aside for later.
func (a *agent) attempt(ctx context.Context, s *session, e *edit) (bool, error) {
	for {
		if !e.read || e.stale || (e.tries > 0 && a.k.Reread) {
			if read, err := a.readFile(ctx, s, e); err != nil || !read {
				return false, err
			}
			if err := a.pause(ctx, a.k.Think); err != nil {
				return false, err
			}
		}
		content := append(append([]byte{}, e.base...), e.token+"\n"...)
		ok, a2, by, err := a.writeFile(ctx, s, e, content)
		if err != nil || ok {
			return ok, err
		}
		if e.tries == 0 {
			e.firstRefused = time.Now()
		}
		e.tries++
		class := classify(a2.reason)
		a.log(record{Kind: "refusal", Session: s.id, File: e.file, Token: e.token, By: by, Class: class, Reason: a2.reason, Tries: e.tries})
		if a.k.MaxTries > 0 && e.tries >= a.k.MaxTries {
			return false, nil
		}
		switch {
		case class == "stale":
			// "changed since you read it… read it again": re-read and redo.
			e.stale = true
			a.log(record{Kind: "redo", Session: s.id, File: e.file, Token: e.token})
			if err := a.pause(ctx, a.k.Step); err != nil {
				return false, err
			}
		case waitCommand(a2.reason) != "" && a.rng.Float64() < a.k.WaitShare:
			got, err := a.wait(ctx, s, e, waitCommand(a2.reason))
			if err != nil || !got {
				return false, err
			}
		default:
			return false, nil
		}
	}
}

// readFile reads e's file through the CLI's read tool, with the hooks the
// CLI fires around it, and keeps what it read; it reports whether the read
// happened (no hook of init's refuses a read today; a refused one is put
// aside like a refused write). The first read of the agent meets the
// rendezvous when there is one.
func (a *agent) readFile(ctx context.Context, s *session, e *edit) (bool, error) {
	if err := a.pause(ctx, a.k.Step); err != nil {
		return false, err
	}
	tc := a.cli.read(s, e.file)
	var data []byte
	refused, err := a.tool(ctx, s, tc, func() (string, error) {
		var err error
		data, err = os.ReadFile(filepath.Join(s.dir, e.file))
		return string(data), err
	})
	if err != nil {
		return false, err
	}
	if refused != nil {
		e.tries++
		a.log(record{Kind: "refusal", Session: s.id, File: e.file, Token: e.token, By: "hook", Class: "read", Reason: refused.reason, Tries: e.tries})
		return false, nil
	}
	e.base, e.read, e.stale = data, true, false
	a.log(record{Kind: "read", Session: s.id, File: e.file, Token: e.token})
	if !contains(a.open, e) {
		a.open = append(a.open, e)
	}
	if a.first {
		a.first = false
		return true, a.rendezvous(ctx)
	}
	return true, nil
}

// writeFile writes content over e's file through the CLI's whole-file
// write tool: the CLI's own check first (with -cli-guard), then its
// pre-tool hooks, then the write in place (truncate and write, as Node's
// writeFile does), then its post-tool hooks. It reports whether the write
// happened, and otherwise the refusal and who refused.
func (a *agent) writeFile(ctx context.Context, s *session, e *edit, content []byte) (bool, answer, string, error) {
	path := filepath.Join(s.dir, e.file)
	if a.k.CLIGuard && a.cli.guard != "" {
		now, err := os.ReadFile(path)
		if err != nil {
			return false, answer{}, "", fmt.Errorf("cli guard: %w", err)
		}
		if string(now) != string(e.base) {
			return false, answer{deny: true, reason: a.cli.guard}, "cli", nil
		}
	}
	tc := a.cli.write(s, e.file, string(content))
	refused, err := a.tool(ctx, s, tc, func() (string, error) {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return "", err
		}
		var waited int64
		if e.tries > 0 {
			waited = time.Since(e.firstRefused).Nanoseconds()
		}
		a.log(record{Kind: "write", Session: s.id, File: e.file, Token: e.token, Waited: waited, Tries: e.tries})
		return "", nil
	})
	if err != nil || refused == nil {
		return refused == nil && err == nil, answer{}, "", err
	}
	return false, *refused, "hook", nil
}

// tool makes one tool call the way the CLI does: pre-tool hooks (which
// may refuse it: then it does not run), the tool, post-tool hooks. It
// returns the refusal, if any.
func (a *agent) tool(ctx context.Context, s *session, tc toolCall, do func() (string, error)) (*answer, error) {
	s.callSeq++
	s.callID = fmt.Sprintf("call_%s%s_%d", s.id[:8], s.agentID, s.callSeq)
	pre, err := a.fireAnswer(ctx, s, call{event: a.cli.ev.preTool, kind: "preTool", tool: &tc})
	if err != nil {
		return nil, err
	}
	if pre.deny {
		return &pre, nil
	}
	out, err := do()
	if err != nil {
		return nil, err
	}
	return nil, a.fire(ctx, s, call{event: a.cli.ev.postTool, kind: "postTool", tool: &tc, output: out})
}

// shell runs command through the CLI's shell tool (hooks included), with
// the environment the CLI gives the model's commands; it returns the
// command's exit code and output.
func (a *agent) shell(ctx context.Context, s *session, command string) (int, string, error) {
	code := -1
	var output string
	refused, err := a.tool(ctx, s, a.cli.shell(command), func() (string, error) {
		cmd := exec.CommandContext(ctx, "bash", "-c", command)
		cmd.Dir = s.dir
		cmd.Env = append(append([]string{}, s.env...), a.cli.shellEnv(s)...)
		out, err := cmd.CombinedOutput()
		output = string(out)
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			code = exit.ExitCode()
		case err != nil:
			return "", fmt.Errorf("shell %q: %w", command, err)
		default:
			code = 0
		}
		return output, nil
	})
	if err == nil && refused != nil {
		output = refused.reason
	}
	return code, output, err
}

// wait runs the refusal's wait command through the shell, its wait cut to
// WaitCap, and reports whether the lock is now the session's.
func (a *agent) wait(ctx context.Context, s *session, e *edit, command string) (bool, error) {
	if err := a.pause(ctx, a.k.Step); err != nil {
		return false, err
	}
	command = capWait(command, a.k.WaitCap)
	start := time.Now()
	code, _, err := a.shell(ctx, s, command)
	a.log(record{Kind: "wait", Session: s.id, File: e.file, Token: e.token, Took: time.Since(start).Nanoseconds(), Exit: code})
	return code == 0, err
}

// fire runs the hooks of one event, giving the model whatever they say.
func (a *agent) fire(ctx context.Context, s *session, c call) error {
	_, err := a.fireAnswer(ctx, s, c)
	return err
}

func (a *agent) fireAnswer(ctx context.Context, s *session, c call) (answer, error) {
	if c.event == "" {
		return answer{}, nil
	}
	ans, runs, err := runHooks(ctx, s, c)
	for _, r := range runs {
		rec := record{Kind: "hook", Session: s.id, Event: c.event, Took: r.took.Nanoseconds(), Exit: r.exit, Timeout: r.timedOut}
		if c.tool != nil {
			rec.Tool, rec.File = c.tool.name, c.tool.file
		}
		rec.Deny = s.cli.answer(c, r).deny
		a.log(rec)
	}
	if err != nil {
		return answer{}, err
	}
	a.hear(s, ans.context)
	return ans, nil
}

// hear is the model reading text a hook added to its context: told that a
// file it has read changed, it reads it again before writing it.
func (a *agent) hear(s *session, text string) {
	if text == "" || !staleWords.MatchString(text) {
		return
	}
	for _, e := range a.open {
		if strings.Contains(text, filepath.Join(s.dir, e.file)) || strings.Contains(text, e.file) {
			e.stale = true
			a.log(record{Kind: "told", Session: s.id, File: e.file, Token: e.token, Reason: text})
		}
	}
}

// rendezvous waits, on the first read, until every agent (every thread,
// with sub-agents) has read.
func (a *agent) rendezvous(ctx context.Context) error {
	dir := a.spec.Rendezvous
	if dir == "" {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%d", a.spec.Index, a.sub)), nil, 0o644); err != nil {
		return fmt.Errorf("rendezvous: %w", err)
	}
	all := a.k.Agents * max(1, a.k.Subagents)
	for {
		names, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("rendezvous: %w", err)
		}
		if len(names) >= all {
			return nil
		}
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return fmt.Errorf("rendezvous: %d of %d threads read: %w", len(names), all, err)
		}
	}
}

// pause is the model's time: mean, jittered.
func (a *agent) pause(ctx context.Context, mean time.Duration) error {
	f := 1 + a.k.Jitter*(2*a.rng.Float64()-1)
	return sleep(ctx, time.Duration(float64(mean)*f))
}

// uuid is a session id in the CLIs' form (a random UUID, v4).
func (a *agent) uuid() string {
	hi, lo := a.rng.Uint64(), a.rng.Uint64()
	hi = hi&^0xf000 | 0x4000
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, hi>>16&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func contains(list []*edit, e *edit) bool {
	for _, o := range list {
		if o == e {
			return true
		}
	}
	return false
}

// staleWords are how a refusal or a note says that the file changed since
// the model read it (Claude Code's own check says "modified since read…
// Read it again").
var staleWords = regexp.MustCompile(`(?i)changed since|modified since|read it again|re-read|reread|read the file again`)

// heldWords are how a refusal says that someone else has the file.
var heldWords = regexp.MustCompile(`(?i)held by|locked by|work on another file|work on something else|work outside`)

// waitWords find the wait command a refusal offers, in backquotes.
var waitWords = regexp.MustCompile("`(agentlock acquire --wait[^`]*)`")

// classify is how the model reads a refusal: "stale" (read it again and
// redo), "held" (someone else has it: work on something else and come
// back) or "other".
func classify(reason string) string {
	switch {
	case staleWords.MatchString(reason):
		return "stale"
	case heldWords.MatchString(reason):
		return "held"
	}
	return "other"
}

// waitCommand is the `agentlock acquire --wait …` command a refusal
// offers, or "".
func waitCommand(reason string) string {
	if m := waitWords.FindStringSubmatch(reason); m != nil {
		return m[1]
	}
	return ""
}

// capWait cuts the wait a command asks for to limit (whole seconds, as
// agentlock reads them).
func capWait(command string, limit time.Duration) string {
	m := waitArg.FindStringSubmatchIndex(command)
	if m == nil {
		return command
	}
	arg := command[m[2]:m[3]]
	d, err := time.ParseDuration(arg)
	if n, err2 := strconv.Atoi(arg); err != nil && err2 == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d <= limit {
		return command
	}
	return command[:m[2]] + strconv.Itoa(int(limit/time.Second)) + "s" + command[m[3]:]
}

// waitArg finds the duration of a --wait flag.
var waitArg = regexp.MustCompile(`--wait[ =](\S+)`)
