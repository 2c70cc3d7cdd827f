//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// staleCase is how the suite drives a CLI's stale case (issue 34,
// docs/read-versions.md): its read tool and its whole-file write tool.
type staleCase struct {
	// read is the step that reads the file at path (absolute).
	read func(path string) mock.Step
	// write is the step that writes content over the whole file at path.
	write func(path, content string) mock.Step
	// cliGuard, when not "", is what the CLI itself says when it refuses
	// a write of a file changed since it read it (Claude Code's "modified
	// since read", before any hook; Qwen Code's by mtime or size): a
	// refusal that says it, and not agentlock's, is the CLI's, asserted as
	// such.
	cliGuard string
	// model is the model id the case asks for ("" for the agent's own):
	// Copilot CLI offers apply_patch only to GPT-5 ids.
	model string
	// toldEarly is set for a CLI that passes the after-tool hook's context
	// to the model (its manifest's after_tool_context): after the other
	// session's change, the next tool's hook tells the model the file it
	// read changed, naming who, once (docs/read-versions.md): toldOnce.
	toldEarly bool
}

// staleWriter is the session that changes the file between the CLI's read
// and its write.
const staleWriter = "other-2"

// The stale case: the CLI reads stale.txt; another session takes its lock,
// changes it and releases it (a shell step of the scripted model, as
// other-2); the CLI's whole-file write from its read is refused — with
// agentlock's reason naming other-2 and telling it to read again, or by the
// CLI itself, asserted as such — and other-2's change is intact; then the
// CLI reads the file again and its write goes through, other-2's change
// kept (a second read and write, of the same content, cover a read again
// that agentlock could not tell from one made before other-2's change).
func e2eStale(t *testing.T, a agent, prog string) {
	r, path, change := newStaleRun(t, a)
	steps := []mock.Step{
		a.stale.read(path),
		change,
		a.stale.write(path, "C0\nX\n"),
		a.stale.read(path),
		a.stale.write(path, "C0\nC1\nX\n"),
		// Once more, the same content: needed only when the read again
		// was unsettled (below).
		a.stale.read(path),
		a.stale.write(path, "C0\nC1\nX\n"),
	}
	r.start(t, steps)
	r.model = a.stale.model
	r.runCLI(t, a, prog, false)

	if a.stale.toldEarly {
		toldOnce(t, r.server.Requests())
	}
	refusal := r.told(t, 2)
	t.Logf("the stale write: the model read %q", refusal)
	switch {
	case strings.Contains(refusal, "agentlock:"):
		for _, want := range []string{"stale.txt", staleWriter, "read it again", "reserved for you"} {
			if !strings.Contains(refusal, want) {
				t.Errorf("the stale write: agentlock's refusal should say %q; the model read %q", want, refusal)
			}
		}
		for _, m := range misleading {
			if strings.Contains(refusal, m) {
				t.Errorf("the stale write: the model read %q: %q", m, refusal)
			}
		}
	case a.stale.cliGuard != "" && strings.Contains(refusal, a.stale.cliGuard):
		t.Logf("the stale write was refused by %s itself, before agentlock's check", a.cli.name)
	default:
		t.Errorf("the stale write was not refused (by agentlock, naming %s, or by %s's own check): the model read %q", staleWriter, a.cli.name, refusal)
	}
	// The write after the read again goes through — unless that read came
	// within the settle window of other-2's change (docs/read-versions.md)
	// with the file not reserved for the CLI's session (the CLI refused
	// the stale write itself, so no hook reserved it): agentlock cannot
	// tell whether the read saw the change, refuses once and reserves the
	// file, and the next read and write go through.
	refused := func(text string) bool {
		return strings.Contains(text, "agentlock:") || a.stale.cliGuard != "" && strings.Contains(text, a.stale.cliGuard)
	}
	switch after := r.told(t, 4); {
	case !refused(after):
	case a.stale.cliGuard != "" && strings.Contains(refusal, a.stale.cliGuard) &&
		strings.Contains(after, "may have changed since you") && strings.Contains(after, staleWriter) && strings.Contains(after, "reserved for you"):
		t.Logf("the read again came within the settle window of %s's change: refused once, the file reserved: %q", staleWriter, after)
	default:
		t.Errorf("the write after a read again was refused: %q", after)
	}
	if after := r.told(t, 6); refused(after) {
		t.Errorf("the write after a read again, the file reserved, was refused: %q", after)
	}
	r.fileIs(t, "stale.txt", "C0\nC1\nX\n", "other-2's change is kept, the write after a read again made")
}

// newStaleRun is the run of a stale case: stale.txt holds "C0\n"; path is
// its absolute path, change the shell step by which other-2 takes its
// lock, appends "C1\n" and releases it.
func newStaleRun(t *testing.T, a agent) (r *e2eRun, path string, change mock.Step) {
	r = newE2ERun(t, a)
	path = r.repo + "/stale.txt"
	r.write(t, path, "C0\n")
	return r, path, shell("AGENTLOCK_SESSION=" + staleWriter + " agentlock acquire stale.txt > change.txt 2>&1 && printf 'C1\\n' >> stale.txt && " +
		"AGENTLOCK_SESSION=" + staleWriter + " agentlock release stale.txt >> change.txt 2>&1")
}

// staleNotice is what only agentlock's early notice says
// (docs/read-versions.md, Telling the model early).
const staleNotice = "Your view of it is stale"

// toldOnce checks the early notice in the requests the mock received: none
// before other-2's change; the request that carries the result of the
// shell step that made it (the read's and its: 2 tool results), the model's
// next, carries the notice, naming stale.txt and other-2; it occurs exactly
// once in that request and in every one after it (each carries the
// conversation so far: the notice is never told again).
func toldOnce(t *testing.T, requests []mock.Request) {
	t.Helper()
	next := -1
	for i, q := range requests {
		n, results := strings.Count(q.Body, staleNotice), len(mock.ToolResults(q.Body))
		switch {
		case results < 2 && n > 0:
			t.Errorf("request %d (%d tool results, before %s's change was made) carries the early notice", i, results, staleWriter)
		case results < 2:
		case next < 0 && results != 2:
			t.Errorf("request %d carries %d tool results: no request carried the result of the shell step alone", i, results)
			next = i
		case next < 0:
			next = i
			if n != 1 {
				t.Errorf("the model's next request after %s's change (request %d) carries the early notice %d times, want once", staleWriter, i, n)
				break
			}
			at := strings.Index(q.Body, staleNotice)
			notice := q.Body[max(0, at-300):at]
			for _, want := range []string{"stale.txt changed since you", "changed by session " + staleWriter} {
				if !strings.Contains(notice, want) {
					t.Errorf("the early notice should say %q; the request carries %q", want, notice)
				}
			}
			t.Logf("the early notice, in the model's next request: %q", notice+staleNotice)
		case n != 1:
			t.Errorf("request %d carries the early notice %d times, want once (told once, carried in the conversation)", i, n)
		}
	}
	if next < 0 {
		t.Errorf("no request carried the result of the shell step that changed stale.txt")
	}
}

// deleteAddFile is a patch in Codex's format that deletes the file at path
// and adds it again with content: how Copilot CLI's GPT-5 models rewrite a
// whole file with apply_patch.
func deleteAddFile(path, content string) string {
	return strings.Replace(addFile(path, content), "*** Add File:", "*** Delete File: "+path+"\n*** Add File:", 1)
}

// addFile is a patch in Codex's format that adds the file at path with
// content (over an existing file, Codex replaces it).
func addFile(path, content string) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: " + path + "\n")
	for _, line := range strings.SplitAfter(content, "\n") {
		if line != "" {
			b.WriteString("+" + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	b.WriteString("*** End Patch")
	return b.String()
}
