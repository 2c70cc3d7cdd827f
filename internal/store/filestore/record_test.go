package filestore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/store"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    store.Record
		wantErr bool
	}{
		{name: "empty is free", content: ""},
		{name: "blank is free", content: " \n"},
		{name: "0.2 form", content: "claude-1|1700000000.5|/p/a.go",
			want: store.Record{Session: "claude-1", Stamp: time.Unix(1700000000, 5e8), Path: "/p/a.go"}},
		{name: "path with a bar", content: "s|1700000000|/p/a|b.go",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p/a|b.go"}},
		{name: "0.1.0 form", content: "kimi-9|1700000000.25",
			want: store.Record{Session: "kimi-9", Stamp: time.Unix(1700000000, 25e7)}},
		{name: "trailing newline", content: "s|1700000000|/p\n",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p"}},
		{name: "no separator", content: "garbage", wantErr: true},
		{name: "bad timestamp", content: "s|yesterday|/p", wantErr: true},
		{name: "nan timestamp", content: "s|nan|/p", wantErr: true},
		{name: "no session", content: "|1700000000|/p", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRecord([]byte(tt.content))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Session, got.Session)
			assert.Equal(t, tt.want.Path, got.Path)
			assert.True(t, tt.want.Stamp.Equal(got.Stamp), "stamp %v, want %v", got.Stamp, tt.want.Stamp)
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := store.Record{Session: "codex-7", Stamp: time.Unix(1732912345, 123456000), Path: "/w/src/main.go"}
	assert.Equal(t, "codex-7|1732912345.123456|/w/src/main.go", string(encodeRecord(r)))
	back, err := parseRecord(encodeRecord(r))
	require.NoError(t, err)
	assert.Equal(t, r.Session, back.Session)
	assert.Equal(t, r.Path, back.Path)
	assert.True(t, r.Stamp.Equal(back.Stamp))
}

func TestLockFileNameIsTruncatedSHA256(t *testing.T) {
	// sha256("/tmp/x") starts 2e56aa36f538b33b (sha256sum): the name is its first 16 hex digits.
	assert.Equal(t, "2e56aa36f538b33b.lock", LockFileName("/tmp/x"))
}
