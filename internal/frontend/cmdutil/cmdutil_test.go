package cmdutil

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSecondsFlag(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	var d time.Duration
	SecondsVar(cmd.Flags(), &d, "wait", "")
	f := cmd.Flags().Lookup("wait")
	assert.Equal(t, "", f.Value.String(), "no default shown")
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{{"90", 90 * time.Second}, {"1.5", 1500 * time.Millisecond}, {"2m", 2 * time.Minute}} {
		require.NoError(t, f.Value.Set(tc.in))
		assert.Equal(t, tc.want, d, tc.in)
	}
	assert.Equal(t, "2m0s", f.Value.String())
	assert.EqualError(t, f.Value.Set("soon"), `"soon" is neither seconds (90) nor a duration (90s, 2m)`)
	// Values no duration can have are refused, naming what was typed,
	// and leave the flag as it was: converted, NaN, an infinity or 1e30
	// seconds would become a negative duration.
	for _, bad := range []string{"NaN", "inf", "-Inf", "1e30", "1e400", "-5", "-1s"} {
		err := f.Value.Set(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), `"`+bad+`"`)
		assert.Equal(t, 2*time.Minute, d, bad)
	}
	require.NoError(t, f.Value.Set("0"))
	assert.Zero(t, d)
}

func TestSuggestFlag(t *testing.T) {
	root := &cobra.Command{Use: "agentlock"}
	root.SuggestionsMinimumDistance = 2
	root.PersistentFlags().String("session", "", "")
	sub := &cobra.Command{Use: "acquire", Run: func(*cobra.Command, []string) {}}
	sub.Flags().Duration("wait", 0, "")
	sub.Flags().Bool("secret", false, "")
	require.NoError(t, sub.Flags().MarkHidden("secret"))
	root.AddCommand(sub)

	assert.EqualError(t, SuggestFlag(sub, errors.New("unknown flag: --sesion")), "unknown flag: --sesion; did you mean --session?")
	assert.EqualError(t, SuggestFlag(sub, errors.New("unknown flag: --wiat")), "unknown flag: --wiat; did you mean --wait?")
	assert.EqualError(t, SuggestFlag(sub, errors.New("unknown flag: --secre")), "unknown flag: --secre", "hidden flags are not suggested")
	assert.EqualError(t, SuggestFlag(sub, errors.New("unknown flag: --zzzzzz")), "unknown flag: --zzzzzz")
	other := errors.New("bad value")
	assert.Same(t, other, SuggestFlag(sub, other))

	assert.Equal(t, "usage: agentlock acquire [flags]\nsee 'agentlock acquire --help'", HelpHint(sub))
	assert.Equal(t, "see 'agentlock --help'", HelpHint(root))
}

func TestEditDistance(t *testing.T) {
	assert.Equal(t, 0, EditDistance("abc", "abc"))
	assert.Equal(t, 3, EditDistance("", "abc"))
	assert.Equal(t, 1, EditDistance("sesion", "session"))
	assert.Equal(t, 2, EditDistance("wiat", "wait"))
}

func TestWriteReference(t *testing.T) {
	root := &cobra.Command{Use: "tool", Long: "Tool does things."}
	root.PersistentFlags().Bool("json", false, "JSON out")
	run := func(*cobra.Command, []string) {}
	a := &cobra.Command{Use: "a <x>", Short: "Do a", Long: "Table:\n  x  y", Example: "  tool a 1", Run: run}
	a.Flags().Bool("force", false, "force it")
	root.AddCommand(a, &cobra.Command{Use: "hid", Short: "Hidden", Hidden: true, Run: run},
		&cobra.Command{Use: "b", Short: "Do b", Long: "Plain.", Run: run})
	var b strings.Builder
	require.NoError(t, WriteReference(&b, root, Reference{Title: "tool reference", Generated: "made", Epilogue: "Exit 0."}))
	assert.Equal(t, "# tool reference\n\n<!-- made -->\n\nTool does things.\n\n"+
		"Flags accepted by every command:\n\n```\n      --json   JSON out\n```\n\nExit 0.\n\n"+
		"## tool a\n\nDo a.\n\n```\ntool a <x> [flags]\n```\n\n```text\nTable:\n  x  y\n```\n\n"+
		"Examples:\n\n```\n  tool a 1\n```\n\nFlags:\n\n```\n      --force   force it\n```\n\n"+
		"## tool b\n\nDo b.\n\n```\ntool b\n```\n\nPlain.\n", b.String())
}

func TestWrapArgsAndAskedBool(t *testing.T) {
	root := &cobra.Command{Use: "tool", Args: cobra.NoArgs, Run: func(*cobra.Command, []string) {}}
	sub := &cobra.Command{Use: "sub", Args: cobra.ExactArgs(1), Run: func(*cobra.Command, []string) {}}
	none := &cobra.Command{Use: "none", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sub, none)
	marked := errors.New("marked")
	WrapArgs(root, func(err error) error { return errors.Join(marked, err) })
	assert.ErrorIs(t, sub.Args(sub, nil), marked)
	assert.NoError(t, sub.Args(sub, []string{"a"}))
	assert.ErrorIs(t, root.Args(root, []string{"x"}), marked)
	assert.Nil(t, none.Args, "a command without checks gets none")

	assert.True(t, AskedBool([]string{"status", "--json"}, "json"))
	assert.True(t, AskedBool([]string{"--json=1", "status"}, "json"))
	assert.False(t, AskedBool([]string{"status", "--", "--json"}, "json"), "after --, an argument")
	assert.False(t, AskedBool([]string{"--json=false"}, "json"))
}
