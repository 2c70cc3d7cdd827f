package procs

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func supported(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("process ancestry is read on Linux and macOS only")
	}
}

func TestAncestryOfAChildReachesThisProcess(t *testing.T) {
	supported(t)
	child := exec.Command("sleep", "30")
	require.NoError(t, child.Start())
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })

	chain, err := Ancestry(child.Process.Pid)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(chain), 2)
	assert.Equal(t, child.Process.Pid, chain[0].PID)
	assert.Equal(t, "sleep", chain[0].Name)
	assert.Equal(t, os.Getpid(), chain[1].PID)
	self, err := Self()
	require.NoError(t, err)
	assert.Equal(t, self, chain[1])
	assert.True(t, Alive(chain[0].ID()))
	// The same PID with another start time is another process.
	assert.False(t, Alive(ID{PID: child.Process.Pid, Start: chain[0].Start + 1}))

	// Killed and not reaped yet (a zombie): no longer alive.
	require.NoError(t, child.Process.Kill())
	alive := true
	for end := time.Now().Add(5 * time.Second); alive && time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		alive = Alive(chain[0].ID())
	}
	assert.False(t, alive, "a killed, unreaped child is not alive")
	_, _ = child.Process.Wait()
	assert.False(t, Alive(chain[0].ID()))
	_, err = Get(child.Process.Pid)
	assert.ErrorIs(t, err, ErrGone)
}

func TestStartTimeIsStable(t *testing.T) {
	supported(t)
	a, err := Self()
	require.NoError(t, err)
	time.Sleep(20 * time.Millisecond)
	b, err := Self()
	require.NoError(t, err)
	assert.Equal(t, a.ID(), b.ID())
	assert.Equal(t, "1-2", ID{PID: 1, Start: 2}.String())
}
