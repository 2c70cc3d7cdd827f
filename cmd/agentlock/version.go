package main

import (
	"github.com/spf13/cobra"
)

// VersionOptions are the inputs of agentlock version.
type VersionOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, Config: f.Settings}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of agentlock (also: agentlock --version)",
		Long: `Print the version of this binary — the release version (v1.2.3); else the
one Go recorded: the module version of a go install ...@v1.2.3, or for a build
in a git clone a pseudo-version (v0.0.0-<commit time>-<commit>, +dirty with
uncommitted changes); "devel" when Go recorded none (-buildvcs=false, no git
clone around the build, a linked git worktree) — with the git commit it was
built from and that commit's date, when known. A bug report should quote this
line. With --json: version, commit and date.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return versionRun(opts)
		},
	}
}

func versionRun(opts *VersionOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	return newPrinter(opts.IO, c).Version(buildStamp(), c.Problems)
}
