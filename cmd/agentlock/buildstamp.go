package main

import (
	"runtime/debug"

	"github.com/agentlock/agentlock/report"
)

// The release build stamps these with the linker (GoReleaser's ldflags in
// .goreleaser.yaml): -X main.version=v1.2.3 -X main.commit=<sha>
// -X main.date=<RFC 3339>. They are set once, at link time, and never
// written at run time. Unstamped, buildStamp falls back on the Go build
// information: the module version that go install pkg@v1.2.3 records, and
// the VCS revision and time of a build from a git checkout.
var (
	version string
	commit  string
	date    string
)

// buildStamp is what agentlock version reports about this binary.
func buildStamp() report.Version {
	v := report.Version{Version: version, Commit: commit, Date: date}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = &debug.BuildInfo{}
	}
	if v.Version == "" {
		v.Version = "devel"
		if mv := info.Main.Version; mv != "" && mv != "(devel)" {
			v.Version = mv
		}
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision" && v.Commit == "":
			v.Commit = s.Value
		case s.Key == "vcs.time" && v.Date == "":
			v.Date = s.Value
		}
	}
	return v
}

// moduleVersion is the version of this binary: the release's stamp, the
// module version of a go install pkg@version, or "devel" for a build from
// a work tree.
func moduleVersion() string { return buildStamp().Version }
