//go:build linux

package ancestry

// ParseStat exposes parseStat to the tests.
var ParseStat = parseStat
