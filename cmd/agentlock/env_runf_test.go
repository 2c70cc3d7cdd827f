package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFEnv(t *testing.T) {
	requireCommon(t, "env", newCmdEnv, func(o *EnvOptions) func() (*config, error) { return o.Config }, true)

	r := runfRun(t, "env", newCmdEnv)
	require.NoError(t, r.Err)
	require.Same(t, r.Out, r.Opts.IO.Out, "the Factory's streams")
	requireUsage(t, runfRun(t, "env", newCmdEnv, "extra"), `unknown command "extra" for "agentlock env"`)
}
