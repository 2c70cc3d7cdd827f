package procs

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatchFollowsAProcess(t *testing.T) {
	supported(t)
	running, err := Watch(os.Getpid())
	require.NoError(t, err)
	assert.True(t, running(), "this process runs")
	_, err = Watch(1 << 30)
	assert.Error(t, err, "no such process")
}
