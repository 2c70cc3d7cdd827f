// Package sdkcheck keeps agentlock's SDK honest: its test fails when an
// exported name of an SDK package (see SDK) names a type of an internal
// package, which an outside program could not spell.
package sdkcheck

// SDK lists the packages an outside Go program may import, relative to the
// module's root (docs/architecture.md, "Public or internal: the SDK").
func SDK() []string {
	return []string{"audit", "core", "gitwt", "integrations", "report", "store", "templates", "workspace"}
}
