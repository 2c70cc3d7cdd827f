package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/workspace"
)

// WrittenByFile is the file, inside a project's own .agent-registry
// folder, that records which agentlock wrote each agent's files in this
// checkout (init writes it, uninit forgets the agents it disconnects). It
// is kept beside the files it is about, not in them: Claude's and Codex's
// hook entries sit in JSON settings that have no room for a comment, and
// a version inside generated files would make every upgrade rewrite them.
const WrittenByFile = "written-by.json"

// Writer is the agentlock build that wrote an agent's files.
type Writer struct {
	// Version is the writer's version (v1.2.3, or devel).
	Version string `json:"version"`
	// Commit is its git commit; "" when unknown.
	Commit string `json:"commit,omitempty"`
}

// String is "v1.2.3", or "devel (commit 0123456789ab)" for builds that a
// version alone does not tell apart.
func (w Writer) String() string {
	if w.Commit == "" || (w.Version != "devel" && w.Version != "") {
		return w.Version
	}
	return fmt.Sprintf("%s (commit %s)", w.Version, w.Commit[:min(12, len(w.Commit))])
}

// Same reports whether w and o are the same build as far as the record
// tells.
func (w Writer) Same(o Writer) bool { return w.Version == o.Version && w.Commit == o.Commit }

// writtenBy is the file's content: the writer of each agent's files, by
// agent name.
type writtenBy struct {
	Agents map[string]Writer `json:"agents"`
}

func (p *Project) writtenByPath() string {
	return filepath.Join(p.Root, workspace.HomeDirName, WrittenByFile)
}

// WrittenBy returns the recorded writer of each agent's files, by agent
// name; an agent without a record (files written before agentlock kept
// one, or in another checkout) is absent.
func (p *Project) WrittenBy() (map[string]Writer, error) {
	data, err := os.ReadFile(p.writtenByPath())
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]Writer{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record of who wrote the agents' files: %w", err)
	}
	var rec writtenBy
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it: agentlock init writes it again)", p.writtenByPath(), err)
	}
	if rec.Agents == nil {
		rec.Agents = map[string]Writer{}
	}
	return rec.Agents, nil
}

// RecordWriter records w as the writer of the project's agents' files
// (init, after writing them). A record it cannot read is replaced: it
// holds nothing but this.
func (p *Project) RecordWriter(w Writer) error {
	agents, err := p.WrittenBy()
	if err != nil {
		agents = map[string]Writer{}
	}
	for _, a := range p.set.Agents {
		agents[a.Name()] = w
	}
	return p.saveWrittenBy(agents)
}

// ForgetWriters drops the record of the project's agents (uninit, after
// removing their files); the file goes with the last one.
func (p *Project) ForgetWriters() error {
	agents, err := p.WrittenBy()
	if err != nil {
		agents = map[string]Writer{}
	}
	for _, a := range p.set.Agents {
		delete(agents, a.Name())
	}
	return p.saveWrittenBy(agents)
}

func (p *Project) saveWrittenBy(agents map[string]Writer) error {
	file := p.writtenByPath()
	if len(agents) == 0 {
		if err := atomicfile.Remove(file, p.Root); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", file, err)
		}
		return nil
	}
	data, err := json.MarshalIndent(writtenBy{Agents: agents}, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := atomicfile.MkdirAll(filepath.Dir(file), p.Root, 0o755); err != nil {
		return fmt.Errorf("record who wrote the agents' files: %w", err)
	}
	if err := atomicfile.Write(file, data, 0o644); err != nil {
		return fmt.Errorf("record who wrote the agents' files: %w", err)
	}
	return nil
}

// OtherWriter is an agent whose files another agentlock build wrote.
type OtherWriter struct {
	Agent integrations.Agent
	// Writer is the build that wrote them, Current the one running.
	Writer, Current Writer
	// Stale are the files that the running build writes differently:
	// what the difference of versions changes. Empty: nothing.
	Stale []string
}

// Note says in one line who wrote the agent's files and whether that
// matters.
func (o OtherWriter) Note() string {
	head := fmt.Sprintf("%s's files were written by agentlock %s; this is agentlock %s", o.Agent.Title(), o.Writer, o.Current)
	if len(o.Stale) == 0 {
		return head + ", which writes the same files: nothing to change (agentlock init --agent " + o.Agent.Name() + " records this version)"
	}
	return head + ", which writes " + strings.Join(o.Stale, ", ") + " differently: run agentlock init --agent " + o.Agent.Name()
}

// OtherWriters returns the project's agents whose files the record says
// another build than current wrote, with what current would change in
// them. Agents without a record are not reported.
func (p *Project) OtherWriters(current Writer) ([]OtherWriter, error) {
	rec, err := p.WrittenBy()
	if err != nil {
		return nil, err
	}
	var out []OtherWriter
	for _, a := range p.set.Agents {
		w, ok := rec[a.Name()]
		if !ok || w.Same(current) {
			continue
		}
		one := p.set
		one.Agents, one.Gitignore = []integrations.Agent{a}, false
		arts, _, err := one.Plan()
		if err != nil {
			return nil, err
		}
		o := OtherWriter{Agent: a, Writer: w, Current: current}
		changes, problems := one.Changes(arts, one.Engine.Install)
		for _, e := range problems {
			var ce *integrations.ChangeError
			if errors.As(e, &ce) {
				o.Stale = append(o.Stale, ce.Artifact.Label())
			}
		}
		for _, c := range changes {
			if c.Changed() {
				o.Stale = append(o.Stale, c.Artifact.Label())
			}
		}
		out = append(out, o)
	}
	return out, nil
}
