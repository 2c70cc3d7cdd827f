package main

import (
	"os"

	"github.com/agentlock/agentlock/workspace"
)

// handOverProbe is the command of this test binary that hands a hook's
// command line over, with its payload (see TestMain).
const handOverProbe = "agentlock-handover-probe"

// handOverProbeMain hands "hook claude pre-edit" over, with a payload, and
// says when it did not.
func handOverProbeMain() {
	p := workspace.Process{Args: []string{"hook", "claude", "pre-edit"}, Env: os.Environ()}
	if err := handOver(p, []byte(`{"tool":"Edit"}`)); err != nil {
		os.Stderr.WriteString(err.Error())
		os.Exit(3)
	}
	os.Stdout.WriteString("not handed over\n")
	os.Exit(0)
}
