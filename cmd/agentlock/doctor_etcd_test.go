//go:build etcd

package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEtcdDoctorStoreDownIsNotDamage: with the etcd store down, doctor
// fails on the store, and its advice for the registry and the locks names
// the store: never "move away registry.md" or "make locks a readable
// folder", advice that could lose data when nothing is damaged.
func TestEtcdDoctorStoreDownIsNotDamage(t *testing.T) {
	e := newEtcdTeam(t, 1, "30", "dial-timeout=700ms")
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "alice"))
	e.cluster.Members[0].Stop()
	r := e.run(e.a, "doctor", "--json")
	requireExit(t, 1, r)
	byName := map[string]map[string]any{}
	for _, rec := range jsonLines(t, r) {
		name, _ := rec["name"].(string)
		byName[name] = rec
	}
	require.Equal(t, "problem", byName["store-reachable"]["status"], "%s", r)
	for _, name := range []string{"registry", "lock-files"} {
		fix, _ := byName[name]["fix"].(string)
		require.Contains(t, fix, "store", "%s: %s", name, r)
		require.NotContains(t, fix, "move away", "%s", name)
		require.NotContains(t, fix, "readable folder", "%s", name)
	}
	require.False(t, strings.Contains(r.Stdout, "registry.md (agentlock never overwrites it)"), "%s", r)
}
