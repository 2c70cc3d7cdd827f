//go:build linux

package procs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatTakesTheFieldsAfterTheLastParen(t *testing.T) {
	// A command name may hold spaces and parentheses: "a) (b" here.
	line := "42 (a) (b) S 7 8 9 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 10 18446744073709551615"
	p, err := parseStat(42, line)
	require.NoError(t, err)
	assert.Equal(t, Process{PID: 42, PPID: 7, PGID: 8, SID: 9, Start: 123456, Name: "a) (b"}, p)

	_, err = parseStat(42, "42 (x S 7")
	assert.Error(t, err)
	_, err = parseStat(42, "42 (x) S 7 8")
	assert.Error(t, err)
}

func TestAZombieIsGone(t *testing.T) {
	_, err := parseStat(42, "42 (x) Z 7 8 9 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 123456 1000 10 0")
	assert.ErrorIs(t, err, ErrGone)
}
