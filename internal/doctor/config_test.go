package doctor

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteCheck(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteCheck(&b, Check{Name: "clock", Status: Warn, Detail: "a\x1b[2Jb", Fix: "wait"}))
	require.NoError(t, WriteCheck(&b, Check{Name: "home", Status: OK, Detail: "fine"}))
	assert.Equal(t, "warn     clock: a\\x1b[2Jb\n         fix: wait\nok       home: fine\n", b.String())
}
