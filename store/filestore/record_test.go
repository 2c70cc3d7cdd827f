package filestore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    store.Record
		wantErr bool
		// file is the path the lock file is named for; want.Path when empty.
		file string
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
		{name: "trailing CRLF", content: "s|1700000000|/p\r\n",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p"}},
		{name: "0.1.0 form, trailing newline", content: "kimi-9|1700000000.25\n",
			want: store.Record{Session: "kimi-9", Stamp: time.Unix(1700000000, 25e7)}},
		{name: "path ending in a newline", content: "s|1700000000|/p\n",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p\n"}},
		{name: "path ending in a newline, and one more by hand", content: "s|1700000000|/p\n\n",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p"}, file: "/p"},
		{name: "path ending in CRLF", content: "s|1700000000|/p\r\n",
			want: store.Record{Session: "s", Stamp: time.Unix(1700000000, 0), Path: "/p\r\n"}},
		{name: "session with a space", content: "claude 1|1700000000|/p",
			want: store.Record{Session: "claude 1", Stamp: time.Unix(1700000000, 0), Path: "/p"}},
		{name: "no separator", content: "garbage", wantErr: true},
		{name: "bad timestamp", content: "s|yesterday|/p", wantErr: true},
		{name: "nan timestamp", content: "s|nan|/p", wantErr: true},
		{name: "no session", content: "|1700000000|/p", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := store.DecodeRecord([]byte(tt.content))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			file := tt.file
			if file == "" {
				file = tt.want.Path
			}
			assert.Equal(t, tt.want.Session, got.Session)
			assert.Equal(t, tt.want.Path, recordPath(got.Path, LockFileName(file)))
			assert.True(t, tt.want.Stamp.Equal(got.Stamp), "stamp %v, want %v", got.Stamp, tt.want.Stamp)
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := store.Record{Session: "codex-7", Stamp: time.Unix(1732912345, 123456000), Path: "/w/src/main.go"}
	assert.Equal(t, "codex-7|1732912345.123456|/w/src/main.go", string(store.EncodeRecord(r)))
	for _, path := range []string{"/w/src/main.go", "/w/ends in newline\n", "/w/crlf\r\n", "/w/a|b", "/w/ trailing space "} {
		r.Path = path
		back, err := store.DecodeRecord(store.EncodeRecord(r))
		require.NoError(t, err)
		assert.Equal(t, r.Session, back.Session)
		assert.Equal(t, path, recordPath(back.Path, LockFileName(path)), "byte for byte")
		assert.True(t, r.Stamp.Equal(back.Stamp))
	}
}

func TestLockFileNameIsTruncatedSHA256(t *testing.T) {
	// sha256("/tmp/x") starts 2e56aa36f538b33b (sha256sum): the name is its first 16 hex digits.
	assert.Equal(t, "2e56aa36f538b33b.lock", LockFileName("/tmp/x"))
}
