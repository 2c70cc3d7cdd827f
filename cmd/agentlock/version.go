package main

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
)

// VersionOptions are the inputs of agentlock version.
type VersionOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdVersion(f *Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IO, Config: f.Lenient}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of agentlock (also: agentlock --version)",
		Long: `Print the version of the agentlock module this binary was built from, or
"devel" for a binary built from a work tree.`,
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
	warnProblems(opts.IO, c)
	v := moduleVersion()
	return newPrinter(opts.IO, c).emit(report.Version{Version: v}, "agentlock "+v)
}
