//go:build race

package proctest

// raceEnabled tells Build to compile programs with the race detector, as the
// test binary was.
const raceEnabled = true
