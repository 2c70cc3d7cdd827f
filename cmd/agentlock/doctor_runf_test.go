package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFDoctor(t *testing.T) {
	requireCommon(t, "doctor", newCmdDoctor, func(o *DoctorOptions) func() (*config, error) { return o.Config }, true)

	r := runfRun(t, "doctor", newCmdDoctor)
	require.NoError(t, r.Err)
	require.Same(t, r.Out, r.Opts.IO.Out, "the Factory's streams")
	requireUsage(t, runfRun(t, "doctor", newCmdDoctor, "extra"), `unknown command "extra" for "agentlock doctor"`)
}
