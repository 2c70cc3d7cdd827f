package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFVersion(t *testing.T) {
	requireCommon(t, "version", newCmdVersion, func(o *VersionOptions) func() (*config, error) { return o.Config }, true)

	r := runfRun(t, "version", newCmdVersion)
	require.NoError(t, r.Err)
	require.Same(t, r.Out, r.Opts.IO.Out, "the Factory's streams")
	requireUsage(t, runfRun(t, "version", newCmdVersion, "extra"), `unknown command "extra" for "agentlock version"`)
}
