package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The events of a run with a pass, a skip and a failure: the failure's
// output is printed, the pass's is not, the skip is listed with its
// reason, and -strict fails on the skip alone.
func TestSummary(t *testing.T) {
	events := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: quiet\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestB","Output":"=== RUN   TestB\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: SKIPPED: curl is not on PATH\n"}
{"Action":"output","Package":"p","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p","Test":"TestB"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"output","Package":"q","Output":"?   \tq\t[no test files]\n"}
{"Action":"skip","Package":"q"}
not json: a build error
`
	run := func(in string, strict bool) (string, int) {
		s := &summary{pending: map[string][]string{}}
		var out bytes.Buffer
		s.out = &out
		require.NoError(t, s.read(strings.NewReader(in)))
		code := s.report("step", strict)
		return out.String(), code
	}
	out, code := run(events, false)
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, "quiet")
	assert.Contains(t, out, "ok  \tp\t0.1s\n")
	assert.Contains(t, out, "not json: a build error\n")
	assert.Contains(t, out, "== step: 1 test(s) passed, 0 failed, 1 skipped\n")
	assert.Contains(t, out, "SKIPPED p TestB: b_test.go:9: SKIPPED: curl is not on PATH\n")
	_, code = run(events, true)
	assert.Equal(t, 1, code, "-strict fails on a skip")

	failing := events + `{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:1: boom\n"}
{"Action":"fail","Package":"p","Test":"TestC"}
`
	out, code = run(failing, false)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "c_test.go:1: boom")
}
