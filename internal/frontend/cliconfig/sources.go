package cliconfig

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"
)

// sources are where the settings of one invocation come from: a key's
// flag when the command line gives it, else its variable of EnvBindings
// when set and not empty, else its flag's default, else "".
//
// This is the lookup that viper, which the design card names, did here
// with BindPFlag, BindEnv and GetString, and nothing more: no file, no
// remote and no key is read otherwise. viper is not linked because
// every lock call and hook is a process of its own and pays the package
// initialisation of every library linked (its codecs' regular
// expressions, afero's net/http): about 0.1× flock(1) per process,
// measured in docs/speed.md.
type sources struct {
	flags  map[string]*pflag.Flag
	getenv func(string) string
}

// newSources reads the keys that the root's persistent flags set
// (--session, --timeout, --json) from flags, parsed, and the variables
// with getenv (os.Getenv).
func newSources(flags *pflag.FlagSet, getenv func(string) string) (sources, error) {
	s := sources{flags: make(map[string]*pflag.Flag, 3), getenv: getenv}
	for _, key := range []string{"session", "timeout", "json"} {
		f := flags.Lookup(key)
		if f == nil {
			return sources{}, fmt.Errorf("configuration: the command line has no --%s flag", key)
		}
		s.flags[key] = f
	}
	return s, nil
}

// get returns the value of key: flag > environment > default.
func (s sources) get(key string) string {
	f := s.flags[key]
	if f != nil && f.Changed {
		return f.Value.String()
	}
	for _, b := range EnvBindings {
		if b[0] == key {
			if v := s.getenv(b[1]); v != "" {
				return v
			}
		}
	}
	if f != nil {
		return f.Value.String() // its default, as it was not given
	}
	return ""
}

// getBool returns the value of key as a boolean (false when it is not
// one).
func (s sources) getBool(key string) bool {
	b, _ := strconv.ParseBool(s.get(key))
	return b
}
