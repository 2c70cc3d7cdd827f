//go:build !etcd

package main_test

import "testing"

// teamStore returns nothing: this build has no etcd store (see the etcd
// build's teamStore).
func teamStore(testing.TB) []string { return nil }

// etcdTestBuild tells scripts ([etcd]) whether this is the etcd build.
const etcdTestBuild = false

// conformanceBackends are the stores of this build: the lock files.
func conformanceBackends(*testing.T) []backend { return []backend{filesBackend} }

// damageVersion damages session's version record of the project file rel
// in the project's store: the lock files here.
func damageVersion(t *testing.T, p *project, session, rel string) {
	t.Helper()
	damageVersionFile(t, p, session, rel)
}
