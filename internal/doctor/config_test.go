package doctor

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPluginsOff(t *testing.T) {
	env := map[string]string{"OPENCODE_PURE": "TRUE", "OPENCODE_DISABLE_PROJECT_CONFIG": "0", "KILO_PURE": "1", "KILO_DISABLE_PROJECT_CONFIG": "yes"}
	got := PluginsOff(func(name string) string { return env[name] })
	assert.Equal(t, map[string][]string{"opencode": {"OPENCODE_PURE=TRUE"}, "kilo": {"KILO_PURE=1"}}, got)
	assert.Empty(t, PluginsOff(func(string) string { return "" }))
}

func TestWriteCheck(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteCheck(&b, Check{Name: "clock", Status: Warn, Detail: "a\x1b[2Jb", Fix: "wait"}))
	require.NoError(t, WriteCheck(&b, Check{Name: "home", Status: OK, Detail: "fine"}))
	assert.Equal(t, "warn     clock: a\\x1b[2Jb\n         fix: wait\nok       home: fine\n", b.String())
}
