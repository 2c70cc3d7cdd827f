package core_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/core"
)

// Two agents contend for one file. The lock outlives each call: the state is
// in the lock directory, not in the Locker.
func Example() {
	dir, _ := os.MkdirTemp("", "agentlock-example-")
	defer os.RemoveAll(dir)
	locker := &core.Locker{LockDir: core.StaticDir(filepath.Join(dir, "locks")), Cwd: dir}

	if _, err := locker.Acquire("src/auth.py", "claude-1"); err != nil {
		fmt.Println("unexpected:", err)
	}
	_, err := locker.Acquire("src/auth.py", "codex-2")
	var held *core.HeldError
	if errors.As(err, &held) {
		fmt.Println("codex-2 refused; owner:", held.Owner)
	}
	if _, err := locker.Release("src/auth.py", "codex-2"); errors.Is(err, core.ErrNotOwner) {
		fmt.Println("codex-2 cannot release it")
	}
	locker.Release("src/auth.py", "claude-1")
	lease, _ := locker.Acquire("src/auth.py", "codex-2")
	fmt.Println("now held by", lease.Session)
	// Output:
	// codex-2 refused; owner: claude-1
	// codex-2 cannot release it
	// now held by codex-2
}
