package workspace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// Two agents contend for one file of a project. The lock outlives each call:
// the state is in the project's lock folder, not in the Locker.
func Example() {
	project, _ := os.MkdirTemp("", "agentlock-example-")
	defer os.RemoveAll(project)
	os.Mkdir(filepath.Join(project, ".git"), 0o755) // a project root
	ws, _ := workspace.Open(context.Background(), project, workspace.Settings{})
	locker := ws.Locker()
	ctx := context.Background()
	file := filepath.Join(project, "src/auth.py")

	if _, err := locker.Acquire(ctx, file, "claude-1"); err != nil {
		fmt.Println("unexpected:", err)
	}
	_, err := locker.Acquire(ctx, file, "codex-2")
	var held *core.HeldError
	if errors.As(err, &held) {
		fmt.Println("codex-2 refused; owner:", held.Owner)
	}
	if _, err := locker.Release(ctx, file, "codex-2"); errors.Is(err, core.ErrNotOwner) {
		fmt.Println("codex-2 cannot release it")
	}
	locker.Release(ctx, file, "claude-1")
	lease, _ := locker.Acquire(ctx, file, "codex-2")
	fmt.Println("now held by", lease.Session)
	fmt.Println("lock folder:", ws.LockDir == filepath.Join(project, ".agent-registry", "locks"))
	// Output:
	// codex-2 refused; owner: claude-1
	// codex-2 cannot release it
	// now held by codex-2
	// lock folder: true
}
