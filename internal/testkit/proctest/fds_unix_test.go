//go:build unix

package proctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A descriptor the test process inherited open (as from flock(1) or a
// shell's redirection) reaches its children until KeepInheritedFiles
// marks it; afterwards no child sees it.
func TestKeepInheritedFilesHidesThemFromChildren(t *testing.T) {
	fd, err := syscall.Open(filepath.Join(t.TempDir(), "inherited"), syscall.O_CREAT|syscall.O_RDWR, 0o600)
	require.NoError(t, err)
	defer syscall.Close(fd)
	childSees := func() bool {
		cmd := exec.Command("/bin/sh", "-c", "test -e /dev/fd/"+strconv.Itoa(fd))
		cmd.Env = []string{"PATH=/usr/bin:/bin"}
		err := cmd.Run()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Fatalf("sh: %v", err)
		}
		return err == nil
	}
	require.True(t, childSees(), "a descriptor opened without close-on-exec reaches the child: the test could not fail")
	require.NoError(t, KeepInheritedFiles())
	assert.False(t, childSees(), "after KeepInheritedFiles, the child still has descriptor %d", fd)
	_, err = os.Stat("/dev/fd/" + strconv.Itoa(fd))
	assert.NoError(t, err, "the test process itself keeps its descriptor")
}
