package main

import (
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
func buildStamp() report.Version { return report.Built(version, commit, date) }

// moduleVersion is the version of this binary: the release's stamp, else
// the version Go recorded (the module version of a go install pkg@version,
// a pseudo-version for a build in a git clone), "devel" when none.
func moduleVersion() string { return buildStamp().Version }
