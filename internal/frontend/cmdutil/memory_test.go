package cmdutil

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// gcState returns the collector's target and soft limit, leaving them as
// they were.
func gcState() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

func TestMemory(t *testing.T) {
	percent, limit := gcState()
	t.Cleanup(func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) })
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")

	OneShotMemory()
	p, l := gcState()
	assert.Equal(t, -1, p, "collector off")
	assert.Equal(t, int64(OneShotMemoryLimit), l)
	KeepCollecting()
	p, _ = gcState()
	assert.Equal(t, 100, p)
	ServeMemory()
	p, _ = gcState()
	assert.Equal(t, ServeGCPercent, p)

	// The user's settings win.
	debug.SetGCPercent(77)
	debug.SetMemoryLimit(math.MaxInt64)
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(k, "1")
		OneShotMemory()
		KeepCollecting()
		ServeMemory()
		p, l = gcState()
		assert.Equal(t, 77, p, k)
		assert.Equal(t, int64(math.MaxInt64), l, k)
	}
}
