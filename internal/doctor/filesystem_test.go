package doctor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The synced-folder rules by path, for every OS (the scripts in
// cmd/agentlock/testdata/script/doctor run them end to end on this one).
func TestSyncedFolderByPath(t *testing.T) {
	cases := []struct {
		path, goos, want string
	}{
		{"/Users/u/Library/Mobile Documents/com~apple~CloudDocs/p/.agent-registry", "darwin", "iCloud Drive"},
		{"/Users/u/Library/CloudStorage/OneDrive-Personal/p", "darwin", "OneDrive"},
		{"/Users/u/Library/CloudStorage/GoogleDrive-me@example.com/My Drive/p", "darwin", "Google Drive"},
		{"/Users/u/Library/CloudStorage/Dropbox/p", "darwin", "Dropbox"},
		{"/Users/u/Library/CloudStorage/Acme-Sync/p", "darwin", "Acme-Sync (a cloud storage provider)"},
		{"/home/u/Dropbox (Work)/p", "linux", "Dropbox"},
		{"/mnt/c/Users/u/OneDrive - Acme/p", "linux", "OneDrive"},
		{"/home/u/Google Drive/p", "linux", "Google Drive"},
		{"/Users/u/Desktop/agent-registry", "darwin", syncedDesktop},
		{"/Users/u/Documents/p", "darwin", syncedDesktop},
		{"/Users/u/Desktop/agent-registry", "linux", ""},
		{"/Users/u/src/p/.agent-registry", "darwin", ""},
		{"/home/u/dropbox-notes/p", "linux", ""},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, syncedFolder(c.path, "/Users/u", c.goos), "%s on %s", c.path, c.goos)
	}
}
