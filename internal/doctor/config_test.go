package doctor

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/workspace"
)

func TestPluginsOff(t *testing.T) {
	env := map[string]string{"OPENCODE_PURE": "TRUE", "OPENCODE_DISABLE_PROJECT_CONFIG": "0", "KILO_PURE": "1", "KILO_DISABLE_PROJECT_CONFIG": "yes"}
	got := PluginsOff(func(name string) string { return env[name] })
	assert.Equal(t, map[string][]string{"opencode": {"OPENCODE_PURE=TRUE"}, "kilo": {"KILO_PURE=1"}}, got)
	assert.Empty(t, PluginsOff(func(string) string { return "" }))
}

func TestConfigChecks(t *testing.T) {
	assert.Equal(t, []Check{{Name: "configuration", Status: OK, Detail: "every AGENTLOCK_* setting is valid"}}, ConfigChecks(nil))
	checks := ConfigChecks([]error{errors.New(`AGENTLOCK_TIMEOUT="-5" is invalid`), errors.New("B")})
	require.Len(t, checks, 2)
	assert.Equal(t, Problem, checks[0].Status)
	assert.Equal(t, `AGENTLOCK_TIMEOUT="-5" is invalid; commands refuse to run and the pre-edit hook denies every edit until it is fixed (the checks below use the default)`, checks[0].Detail)
	assert.True(t, Failed(checks))
}

func TestStoreCheck(t *testing.T) {
	_, ok := StoreCheck(errors.New("disk on fire"))
	assert.False(t, ok)
	ch, ok := StoreCheck(fmt.Errorf("store x: %w", workspace.ErrNoRemote))
	require.True(t, ok)
	assert.Equal(t, "store", ch.Name)
	assert.Equal(t, Problem, ch.Status)
	assert.Contains(t, ch.Fix, "install agentlock-etcd")
	ch, ok = StoreCheck(fmt.Errorf("store x: %w", workspace.ErrUnknownScheme))
	require.True(t, ok)
	assert.Contains(t, ch.Fix, "correct AGENTLOCK_STORE")
}

func TestWriteCheck(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteCheck(&b, Check{Name: "clock", Status: Warn, Detail: "a\x1b[2Jb", Fix: "wait"}))
	require.NoError(t, WriteCheck(&b, Check{Name: "home", Status: OK, Detail: "fine"}))
	assert.Equal(t, "warn     clock: a\\x1b[2Jb\n         fix: wait\nok       home: fine\n", b.String())
}
