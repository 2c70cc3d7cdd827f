// Package sdkcheck keeps agentlock's SDK honest: its test fails when an
// exported name of an SDK package (see SDK) names a type of an internal
// package, which an outside program could not spell, or when an SDK
// package imports a front end (internal/frontend/..., cmd/...): the
// layers run down, front ends call the SDK, never the reverse.
package sdkcheck

// SDK lists the packages an outside Go program may import, relative to the
// module's root (docs/architecture.md, "Public or internal: the SDK").
func SDK() []string {
	return []string{"audit", "core", "gitwt", "integrations", "report", "session", "store", "templates", "workspace"}
}

// Renderers returns, per SDK package, the SDK packages it must not import
// either: the session service returns outcomes that report renders, so it
// never imports report.
func Renderers() map[string][]string {
	return map[string][]string{"session": {"report"}}
}
