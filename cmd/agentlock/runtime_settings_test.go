package main_test

import (
	"debug/buildinfo"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A one-shot agentlock process starts no thread for the runtime's periodic
// GOMAXPROCS update (//go:debug updatemaxprocs=0 in main.go, issue 33): the
// build the tests run says so in its build information, as every build of
// this command does.
func TestBuildTurnsOffGOMAXPROCSUpdates(t *testing.T) {
	info, err := buildinfo.ReadFile(harness(t).Bin)
	require.NoError(t, err)
	var godebug string
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" {
			godebug = s.Value
		}
	}
	assert.Contains(t, godebug, "updatemaxprocs=0", "the build's DefaultGODEBUG")
}
