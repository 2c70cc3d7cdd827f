package proctest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// goSources are the go command's settings that say where modules and
// builds come from and go (caches, proxies, private modules): GoEnv keeps
// the developer's, so that a test's build downloads nothing twice and
// finds what the developer's machine can reach.
func goSources() []string {
	return []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOPROXY",
		"GOPRIVATE", "GOINSECURE", "GOVCS", "GOAUTH"}
}

// GoEnv returns the go command's settings for a build a test makes: the
// developer's goSources, read with go env, and nothing of the rest of the
// developer's configuration, which would change what is built — no go env
// file (GOENV=off: `go env -w GOFLAGS=-buildvcs=false`, say), no GOFLAGS,
// and the running toolchain (GOTOOLCHAIN=local). goBin is the go command.
func GoEnv(ctx context.Context, goBin string) ([]string, error) {
	sources := goSources()
	cmd := exec.CommandContext(ctx, goBin, append([]string{"env", "-json"}, sources...)...)
	// The developer's environment, to read the developer's settings; a
	// toolchain named in the env file is not fetched to answer.
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	var values map[string]string
	if err := json.Unmarshal(out, &values); err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	env := []string{"GOENV=off", "GOFLAGS=", "GOTOOLCHAIN=local"}
	for _, name := range sources {
		if v := values[name]; v != "" {
			env = append(env, name+"="+v)
		}
	}
	return env, nil
}

// WithoutGo returns env without the go command's and cgo's variables
// (GO*, CGO_ENABLED): a build given GoEnv's settings gets no others.
func WithoutGo(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO_ENABLED=")
	})
}

// Programs are agentlock's programs, as an install puts them side by side
// (go install ./cmd/...): agentlock, and agentlock-mcp, which agentlock
// mcp runs in its place. A test whose children may run agentlock mcp, or
// doctor (which starts it), builds both into one folder (GoBuildAll).
func Programs() []string {
	return []string{"github.com/agentlock/agentlock/cmd/agentlock", "github.com/agentlock/agentlock/cmd/agentlock-mcp"}
}

// GoBuild builds the Go package pkg (an import path, or a folder relative
// to the working directory) into the file out, as a program for tests to
// run. What it builds depends on the source and flags alone, never on the
// machine: the go command found on PATH (go test puts its own first),
// GoEnv's settings, cgo off (on with -race, which needs it), and
// -buildvcs=false, so that no commit of the checkout is stamped into the
// binary (a work tree's build would report it in its version and in the
// files init records). flags go before pkg (-race, -tags …, -ldflags …,
// -trimpath: which drops -ldflags from the binary's build information).
func GoBuild(ctx context.Context, out, pkg string, flags ...string) error {
	return goBuild(ctx, out, []string{pkg}, flags)
}

// GoBuildAll builds the main packages pkgs as GoBuild does, in one go
// build, into the folder dir, each program named after its package's
// folder (cmd/agentlock-mcp: dir/agentlock-mcp).
func GoBuildAll(ctx context.Context, dir string, pkgs []string, flags ...string) error {
	return goBuild(ctx, dir+string(os.PathSeparator), pkgs, flags)
}

// goBuild runs go build -o out flags pkgs (see GoBuild).
func goBuild(ctx context.Context, out string, pkgs, flags []string) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("find the go command: %w", err)
	}
	goEnv, err := GoEnv(ctx, goBin)
	if err != nil {
		return err
	}
	cgo := "CGO_ENABLED=0"
	if slices.Contains(flags, "-race") {
		cgo = "CGO_ENABLED=1"
	}
	args := append(append([]string{"build", "-buildvcs=false", "-o", out}, flags...), pkgs...)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Env = append(append(WithoutGo(os.Environ()), goEnv...), cgo)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}
