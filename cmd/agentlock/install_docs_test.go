package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// releaseChannel matches the install command of a channel that only a
// published release provides: npm, npx, Homebrew, a release archive's
// download, go install of a version.
var releaseChannel = regexp.MustCompile(`npm install -g @agentlock/agentlock|npx @agentlock/agentlock|brew install|` +
	`go install github\.com/agentlock/agentlock/cmd/(agentlock|\.\.\.)@|/releases/download/`)

// docLine is a line of a Markdown text outside its fenced blocks' own
// headings, with the headings (## and ###) it sits under.
type docLine struct {
	number   int
	text     string
	headings string
	fenced   bool
}

// docLines splits a Markdown text into lines, each with the ## and ###
// headings above it (a "#" inside a fenced block is a shell comment, no
// heading).
func docLines(text string) []docLine {
	var out []docLine
	var h2, h3 string
	fenced := false
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case !fenced && strings.HasPrefix(line, "## "):
			h2, h3 = line, ""
		case !fenced && strings.HasPrefix(line, "### "):
			h3 = line
		}
		out = append(out, docLine{number: i + 1, text: line, headings: h2 + " / " + h3, fenced: fenced})
	}
	return out
}

// No release has been published yet (npm answers 404 for
// @agentlock/agentlock, the module proxy refuses go install …@latest):
// README.md and docs/install.md lead with what works today, from source,
// with the README's two set-up commands, and name a release channel's
// install command only in a section about releases, after saying plainly
// that the channels work from the first published release on.
func TestInstallDocsPromiseNoReleaseChannelToday(t *testing.T) {
	root := filepath.Join("..", "..")
	setUp := map[string][]string{}
	for _, name := range []string{"README.md", filepath.Join("docs", "install.md")} {
		data, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		text := string(data)
		lower := strings.ToLower(text)
		assert.True(t, strings.Contains(lower, "no release has been published yet"), "%s says plainly that nothing is published", name)
		promise := strings.Index(lower, "from the first published release on")
		require.NotEqual(t, -1, promise, "%s says when the release channels start to work", name)
		promiseLine := strings.Count(text[:promise], "\n") + 1

		var block []string
		for _, l := range docLines(text) {
			if releaseChannel.MatchString(l.text) {
				assert.Contains(t, strings.ToLower(l.headings), "release",
					"%s:%d: %q names a release channel under %q, which is not about releases", name, l.number, l.text, l.headings)
				assert.Greater(t, l.number, promiseLine,
					"%s:%d: %q names a release channel before the text says they work from the first published release on", name, l.number, l.text)
			}
			// The first fenced block: what the page tells a reader to run first.
			if setUp[name] == nil && l.fenced && !strings.HasPrefix(l.text, "```") {
				block = append(block, l.text)
			} else if len(block) > 0 && setUp[name] == nil {
				setUp[name] = block
			}
		}
	}
	readme := setUp["README.md"]
	require.Len(t, readme, 2, "the README's first commands are its two set-up commands: %q", readme)
	assert.True(t, strings.HasPrefix(readme[0], "CGO_ENABLED=0 go install ./cmd/... && "), "from source, the main job: %q", readme[0])
	assert.Equal(t, "go test ./...", readme[1], "from source, the tests")
	assert.Equal(t, readme, setUp[filepath.Join("docs", "install.md")], "docs/install.md starts with the README's two commands")
}
