package report

import (
	"runtime/debug"
	"strings"
)

// Built is the Version record of the running program: the values its
// release build stamped with the linker (version, commit, date: "" when
// unstamped), else what the Go build information says — the module
// version that go install pkg@v1.2.3 records, or the pseudo-version of a
// build in a git clone ("devel" when it records none), and the VCS
// revision and time of a build in a git clone.
func Built(version, commit, date string) Version {
	v := Version{Version: version, Commit: commit, Date: date}
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

// Line is the version record for people: "agentlock v1.2.3 (commit
// 0123456789ab, 2026-12-01T22:00:00Z)", without what is unknown.
func (v Version) Line() string {
	var extra []string
	if v.Commit != "" {
		extra = append(extra, "commit "+v.Commit[:min(12, len(v.Commit))])
	}
	if v.Date != "" {
		extra = append(extra, v.Date)
	}
	if len(extra) == 0 {
		return "agentlock " + v.Version
	}
	return "agentlock " + v.Version + " (" + strings.Join(extra, ", ") + ")"
}
