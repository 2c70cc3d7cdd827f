package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// The one codec writes agent-registry 0.2's bytes (the compatibility
// tests run its Python scripts against them) and reads back what it wrote.
func TestRecordCodec(t *testing.T) {
	r := store.Record{Session: "codex-7", Stamp: time.Unix(1732912345, 123456000), Path: "/w/src/main.go"}
	assert.Equal(t, "codex-7|1732912345.123456|/w/src/main.go", string(store.EncodeRecord(r)))
	assert.Equal(t, "codex-7|1732912345.123456", string(store.EncodeRecord(store.Record{Session: "codex-7", Stamp: r.Stamp})), "0.1.0 record, no path")
	assert.Empty(t, store.EncodeRecord(store.Record{}), "a free record is empty")

	// Below a microsecond the stamp is rounded, as a float of this size
	// would round it.
	r.Stamp = time.Unix(1732912345, 123456789)
	assert.Equal(t, "codex-7|1732912345.123457|/w/src/main.go", string(store.EncodeRecord(r)))

	for _, path := range []string{"/w/a|b", "/w/ends in newline\n", "/w/area/"} {
		r.Path = path
		back, err := store.DecodeRecord(store.EncodeRecord(r))
		require.NoError(t, err)
		assert.Equal(t, r.Session, back.Session)
		assert.Equal(t, path, back.Path, "byte for byte")
		assert.True(t, r.Stamp.Round(time.Microsecond).Equal(back.Stamp), "stamp %v", back.Stamp)
	}

	free, err := store.DecodeRecord([]byte(" \n"))
	require.NoError(t, err)
	assert.True(t, free.Free())
	for _, bad := range []string{"garbage", "s|yesterday|/p", "s|nan|/p", "|1700000000|/p"} {
		_, err := store.DecodeRecord([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestCorruptErrorCutsContent(t *testing.T) {
	err := store.NewCorruptError("/l/x.lock", []byte(strings.Repeat("x", 500)), "no '|'")
	assert.ErrorIs(t, err, store.ErrCorrupt)
	assert.Len(t, err.Content, 83)
	assert.Contains(t, err.Error(), "/l/x.lock")
}
