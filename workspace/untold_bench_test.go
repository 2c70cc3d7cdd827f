package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/filedigest"
)

// BenchmarkUntold times the after-tool hook's look for files changed since
// its session read them (Untold), for a session that read 1, 50 and 200
// files of 64 KiB: none of them changed since (the common case, paid after
// every tool call), and all 200 changed by another process and told once
// already (their change older than the margin too). The files are older than filedigest.RacyMargin when read (the
// steady state of a session: a file read within the margin of its last
// change is digested until a hook after the margin records its status).
func BenchmarkUntold(b *testing.B) {
	root, ws := newProject(b)
	counts := []int{1, 50, 200}
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	read := map[int][]string{}
	for _, n := range append(counts, -200) {
		for i := range max(n, -n) {
			p := filepath.Join(root, "src", fmt.Sprintf("n%d", n), fmt.Sprintf("f%03d.go", i))
			require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(b, os.WriteFile(p, data, 0o644))
			read[n] = append(read[n], p)
		}
	}
	time.Sleep(filedigest.RacyMargin + 10*time.Millisecond)
	untold := func(b *testing.B, session string, want int) {
		for b.Loop() {
			told, err := ws.Untold(b.Context(), session)
			if err != nil || len(told) != want {
				b.Fatalf("Untold: %v, %d told, want %d", err, len(told), want)
			}
		}
	}
	for _, n := range counts {
		session := fmt.Sprintf("reader-%d", n)
		_, err := ws.See(b.Context(), session, read[n], time.Time{})
		require.NoError(b, err)
		b.Run(fmt.Sprintf("views=%d", n), func(b *testing.B) { untold(b, session, 0) })
	}
	// Every file changed after the read (same size), and told once.
	_, err := ws.See(b.Context(), "reader-told", read[-200], time.Time{})
	require.NoError(b, err)
	changed := append([]byte{}, data...)
	changed[0] = 'Z'
	for _, p := range read[-200] {
		require.NoError(b, os.WriteFile(p, changed, 0o644))
	}
	time.Sleep(filedigest.RacyMargin + 10*time.Millisecond)
	told, err := ws.Untold(b.Context(), "reader-told")
	require.NoError(b, err)
	require.Len(b, told, 200)
	b.Run("views=200,changed,told", func(b *testing.B) { untold(b, "reader-told", 0) })
}
