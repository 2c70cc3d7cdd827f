package main_test

// The chaos suite: `go test ./... -run Chaos` (skipped under -short; about
// two minutes on two cores). Faults and hostile input against real
// processes:
//
//   - TestChaosKillStorm: kill -9 storms over mixed operations;
//   - TestChaosKillAtSyscall: kills at chosen system calls (strace);
//   - TestChaosStoppedHolderDoesNotHangAnyone (stopped_test.go): SIGSTOP
//     inside a critical section;
//   - TestChaosScripts (testdata/script/chaos): hostile lock folders and
//     registries;
//   - TestChaosHostileHookPayloads: hostile hook payloads.
//
// Related single-fault tests stay with their behaviour:
// lockfile_killed_mid_write and lockfile_torn_record_taken_over (a kill
// between write and truncate), heartbeat_all_survives_foreign_damage,
// hook_policy_fail_closed.

import (
	"testing"
)

// skipChaos skips a chaos test under -short.
func skipChaos(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("chaos suite: skipped under -short (run go test ./... -run Chaos)")
	}
}

// TestChaosScripts runs the scripts of testdata/script/chaos: hostile lock
// folders and registries.
func TestChaosScripts(t *testing.T) {
	skipChaos(t)
	runScripts(t, "chaos", nil)
}
