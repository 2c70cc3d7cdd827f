package store

import (
	"errors"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The version codec round-trips every field, a path with any byte
// included, and tells damage from a record: a torn line, an edited one, a
// line of another kind, each a *DamagedError naming the path when it can
// be read.
func TestVersionCodec(t *testing.T) {
	at := time.Unix(1796532412, 223126359)
	for _, path := range []string{"/p/a.go", "/p/with|bar\nand newline", "/p/ünï"} {
		v := Version{Path: path, Digest: "xxh64:3:0684bac69aef6528", Stat: "3:1:2", At: at, Held: "claude-y", Told: "absent"}
		line, err := EncodeVersion(v)
		require.NoError(t, err)
		assert.NotContains(t, string(line), "\n")
		got, err := DecodeVersion("ref", line)
		require.NoError(t, err)
		assert.Equal(t, v.Path, got.Path)
		assert.True(t, v.At.Equal(got.At))
		assert.Equal(t, v.Digest, got.Digest)
		assert.Equal(t, v.Stat, got.Stat)
		assert.Equal(t, v.Held, got.Held)
		assert.Equal(t, v.Told, got.Told)

		c := Change{Path: path, Session: "claude-y", At: at, Digest: "absent", Kind: ChangeHold}
		line, err = EncodeChange(c)
		require.NoError(t, err)
		gc, err := DecodeChange("ref", line)
		require.NoError(t, err)
		assert.Equal(t, c.Path, gc.Path)
		assert.Equal(t, c.Session, gc.Session)
		assert.Equal(t, ChangeHold, gc.Kind)
		c.Kind = ChangeRelease
		line, err = EncodeChange(c)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(line), "free|"))
		gc, err = DecodeChange("ref", line)
		require.NoError(t, err)
		assert.Equal(t, ChangeRelease, gc.Kind)
	}
	since, err := DecodeSince("ref", EncodeSince(at))
	require.NoError(t, err)
	assert.True(t, since.Equal(at))
	assert.True(t, IsSince(EncodeSince(at)))

	line, err := EncodeVersion(Version{Path: "/p/a", Digest: "d", At: at})
	require.NoError(t, err)
	for name, bad := range map[string]string{
		"torn":        string(line[:len(line)-4]),
		"edited":      strings.Replace(string(line), "|d|", "|e|", 1),
		"a change":    "edit|1|s|d|\"/p/a\"|0",
		"no checksum": "seen",
		"garbage":     "\x00\x01",
	} {
		_, err := DecodeVersion("ref", []byte(bad))
		var d *DamagedError
		require.ErrorAs(t, err, &d, name)
		assert.True(t, errors.Is(err, ErrDamaged), name)
		assert.Equal(t, "ref", d.Ref, name)
		if name == "edited" {
			assert.Equal(t, "/p/a", d.Path, "the damaged record still names its path")
		}
	}
	_, err = EncodeVersion(Version{Path: "/p", Digest: "a|b"})
	assert.Error(t, err, "a field holding the separator")
	_, err = EncodeChange(Change{Path: "/p", Session: "a\nb"})
	assert.Error(t, err)
}

// DamagedFor names the damage that may hide a path's version: its own
// record's, or one whose path could not be read.
func TestViewDamagedFor(t *testing.T) {
	v := View{Damaged: []*DamagedError{{Ref: "r", Path: "/p/b"}}}
	assert.Nil(t, v.DamagedFor("/p/a"))
	assert.NotNil(t, v.DamagedFor("/p/b"))
	v.Damaged = append(v.Damaged, &DamagedError{Ref: "r"})
	assert.NotNil(t, v.DamagedFor("/p/a"), "a record of unknown path may be any path's")
}

// The records' checksum is CRC-32C, as hash/crc32 computes it with the
// processor's instruction: the table written out (no start-up cost) is
// the standard one and gives the same sums, the check value among them.
func TestRecordChecksumIsCRC32C(t *testing.T) {
	assert.Equal(t, uint32(0xE3069283), crc32.Checksum([]byte("123456789"), &crcTable))
	hardware := crc32.MakeTable(crc32.Castagnoli)
	assert.Equal(t, *hardware, crcTable, "the table written out is CRC-32C's")
	for _, s := range []string{"", "a", "seen|1796532412223126359|xxh64:3:0684bac69aef6528|3:1:2|claude-y|absent|\"/p/a.go\"",
		strings.Repeat("edit|x|", 300)} {
		assert.Equal(t, crc32.Checksum([]byte(s), hardware), crc32.Checksum([]byte(s), &crcTable), "%q", s)
	}
}
