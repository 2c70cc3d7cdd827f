package workspace

import (
	"os"
	"testing"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// TestMain runs the tests isolated from the developer's machine: git, run
// by the tests and by the code under test, reads no configuration of the
// developer's, and PATH holds only the tools the tests run
// (proctest.Isolate).
func TestMain(m *testing.M) { os.Exit(proctest.Main(m)) }
