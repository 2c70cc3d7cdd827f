package cmdutil

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Reference describes a command tree's reference page (WriteReference).
type Reference struct {
	// Title is the page's heading, without the "# ".
	Title string
	// Generated is the comment that says how the page is made.
	Generated string
	// Epilogue follows the flags every command accepts (exit codes, say).
	Epilogue string
}

// WriteReference renders the command tree of root as markdown: root's
// description and persistent flags, then one section per visible command,
// with its usage, description, examples and flags.
func WriteReference(w io.Writer, root *cobra.Command, ref Reference) error {
	var b strings.Builder
	b.WriteString("# " + ref.Title + "\n\n")
	b.WriteString("<!-- " + ref.Generated + " -->\n\n")
	b.WriteString(root.Long + "\n\n")
	b.WriteString("Flags accepted by every command:\n\n```\n" + root.PersistentFlags().FlagUsages() + "```\n\n")
	b.WriteString(ref.Epilogue + "\n\n")
	for _, c := range root.Commands() {
		if c.Hidden || !c.IsAvailableCommand() {
			continue
		}
		fmt.Fprintf(&b, "## %s %s\n\n%s.\n\n```\n%s\n```\n\n", root.Name(), c.Name(), c.Short, c.UseLine())
		if c.Long != "" {
			b.WriteString(preformatted(c.Long) + "\n\n")
		}
		if c.Example != "" {
			b.WriteString("Examples:\n\n```\n" + c.Example + "\n```\n\n")
		}
		if flags := c.LocalNonPersistentFlags().FlagUsages(); flags != "" {
			b.WriteString("Flags:\n\n```\n" + flags + "```\n\n")
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

// preformatted keeps a Long text's layout: it is written as preformatted
// text when it holds indented lines, as plain paragraphs otherwise.
func preformatted(s string) string {
	if strings.Contains(s, "\n  ") {
		return "```text\n" + s + "\n```"
	}
	return s
}
