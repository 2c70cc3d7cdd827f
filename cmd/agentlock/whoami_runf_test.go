package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFWhoami(t *testing.T) {
	requireCommon(t, "whoami", newCmdWhoami, func(o *WhoamiOptions) func() (*config, error) { return o.Config }, true)

	r := runfRun(t, "whoami", newCmdWhoami)
	require.NoError(t, r.Err)
	require.Same(t, r.Out, r.Opts.IO.Out, "the Factory's streams")
	requireUsage(t, runfRun(t, "whoami", newCmdWhoami, "extra"), `unknown command "extra" for "agentlock whoami"`)
}
