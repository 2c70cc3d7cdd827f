package codex

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

func bash(t *testing.T, command any) integrations.HookInput {
	t.Helper()
	in, err := json.Marshal(map[string]any{"command": command})
	require.NoError(t, err)
	return integrations.HookInput{ToolName: "Bash", ToolInput: in}
}

const patch = "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** Add File: src/new.go\n+z\n*** End Patch\n"

// Shell commands that run apply_patch are gated on the files the patch
// names, in every here-document form Codex accepts; the strict cd form
// patches in the cd's folder.
func TestShellApplyPatchPaths(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"single-quoted", "apply_patch <<'EOF'\n" + patch + "EOF", []string{"src/a.go", "src/new.go"}},
		{"unquoted", "apply_patch <<EOF\n" + patch + "EOF\n", []string{"src/a.go", "src/new.go"}},
		{"double-quoted", "apply_patch <<\"PATCH\"\n" + patch + "PATCH", []string{"src/a.go", "src/new.go"}},
		{"applypatch", "applypatch <<'EOF'\n" + patch + "EOF", []string{"src/a.go", "src/new.go"}},
		{"cd and", "cd sub && apply_patch <<'EOF'\n" + patch + "EOF", []string{"sub/src/a.go", "sub/src/new.go"}},
		{"cd quoted", "cd 'my dir' && apply_patch <<'EOF'\n" + patch + "EOF", []string{"my dir/src/a.go", "my dir/src/new.go"}},
		{"cd absolute", "cd /repo && apply_patch <<'EOF'\n" + patch + "EOF", []string{"/repo/src/a.go", "/repo/src/new.go"}},
		{"not alone: both folders", "cd sub; apply_patch <<'EOF'\n" + patch + "EOF\necho done",
			[]string{"src/a.go", "src/new.go", "sub/src/a.go", "sub/src/new.go"}},
		{"quoted argument", "apply_patch '" + patch + "'", []string{"src/a.go", "src/new.go"}},
		{"path of the binary", "/usr/local/bin/apply_patch <<'EOF'\n" + patch + "EOF", []string{"src/a.go", "src/new.go"}},
		{"move", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: b.go\n*** Move to: c.go\n*** End Patch\nEOF", []string{"b.go", "c.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Agent().EditedPaths(bash(t, tc.script))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	// As an argv, the form of Codex's exec_command.
	got, err := Agent().EditedPaths(bash(t, []string{"bash", "-lc", "apply_patch <<'EOF'\n" + patch + "EOF"}))
	require.NoError(t, err)
	assert.Equal(t, []string{"src/a.go", "src/new.go"}, got)
}

// Ordinary shell commands name no path, even when they mention apply_patch
// or hold patch-like text: they pass with no lock.
func TestShellCommandsWithoutApplyPatchPass(t *testing.T) {
	for _, script := range []string{
		"ls -la",
		"go test ./...",
		"grep -rn apply_patch .",
		"echo 'apply_patch <<EOF'",
		"cat > notes.md <<'EOF'\napply_patch\n*** Update File: src/a.go\nEOF",
		"git log --grep='*** Update File: src/a.go'",
		"sed -i s/a/b/ src/a.go",
	} {
		got, err := Agent().EditedPaths(bash(t, script))
		require.NoError(t, err, script)
		assert.Empty(t, got, script)
	}
}

// apply_patch fed from a file or a pipe changes files the hook cannot see:
// the edit cannot be checked.
func TestShellApplyPatchHiddenPatchIsUncheckable(t *testing.T) {
	for _, script := range []string{"apply_patch < fix.patch", "cat fix.patch | apply_patch", `apply_patch "$(cat fix.patch)"`} {
		_, err := Agent().EditedPaths(bash(t, script))
		assert.ErrorIs(t, err, integrations.ErrUncheckable, script)
	}
}

// A context line of a patch that mentions a header is not a header.
func TestPatchContextLineIsNotAHeader(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"command": "*** Begin Patch\n*** Update File: doc.md\n@@\n *** Add File: other.go\n-a\n+b\n*** End Patch"})
	got, err := Agent().EditedPaths(integrations.HookInput{ToolName: "apply_patch", ToolInput: in})
	require.NoError(t, err)
	assert.Equal(t, []string{"doc.md"}, got)
}
