// Package e2e drives the real agent CLIs (Claude Code, Codex CLI, Gemini
// CLI) against the scripted mock model of package mock, to check facts that
// agentlock relies on. Its tests run only with AGENTLOCK_E2E=1, not under
// -short, and only for the CLIs they find (see cliPath in the tests).
package e2e
