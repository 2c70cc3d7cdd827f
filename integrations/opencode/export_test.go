package opencode

// The doctor checks, for the tests of package opencode_test (which may
// import Kilo's package).
var (
	OpenCodePlugin = openCodePlugin
	PluginsOff     = pluginsOff
)
