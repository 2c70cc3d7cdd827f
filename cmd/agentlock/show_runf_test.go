package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFShow(t *testing.T) {
	requireCommon(t, "show", newCmdShow, func(o *ShowOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "show", newCmdShow)
	require.NoError(t, r.Err)
	require.Same(t, r.Out, r.Opts.IO.Out, "the Factory's streams")
	requireUsage(t, runfRun(t, "show", newCmdShow, "extra"), `unknown command "extra" for "agentlock show"`)
}
