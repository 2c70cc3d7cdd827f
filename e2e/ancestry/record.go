//go:build linux

package ancestry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Record is what the ancestry-dump program writes, one JSON line per call:
// who called it (Label), its chain of ancestors, nearest first (its own
// process is left out), the environment variables that name a session, and
// the stdin it got (a hook's payload).
type Record struct {
	Label string            `json:"label"`
	Chain []Proc            `json:"chain"`
	Env   map[string]string `json:"env"`
	Stdin string            `json:"stdin,omitempty"`
}

// EnvPrefixes select the environment variables a Record keeps.
var EnvPrefixes = []string{"CLAUDE", "CODEX", "GEMINI", "KIMI", "COPILOT", "AGENTLOCK", "AGENT_", "ANTHROPIC", "OPENAI", "GOOGLE", "SHLVL", "PPID", "TERM_PROGRAM"}

// Selected returns the variables of environ (KEY=value) whose names start
// with one of EnvPrefixes. Keys that hold an API key keep only their name.
func Selected(environ []string) map[string]string {
	env := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		for _, p := range EnvPrefixes {
			if strings.HasPrefix(k, p) {
				if strings.Contains(k, "KEY") || strings.Contains(k, "TOKEN") {
					v = "(set)"
				}
				env[k] = v
				break
			}
		}
	}
	return env
}

// ReadRecords reads a file of JSON lines written by Append.
func ReadRecords(path string) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read ancestry records: %w", err)
	}
	var recs []Record
	dec := json.NewDecoder(strings.NewReader(string(data)))
	for {
		var r Record
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			return recs, nil
		} else if err != nil {
			return recs, fmt.Errorf("decode ancestry record in %s: %w", path, err)
		}
		recs = append(recs, r)
	}
}

// Append writes r as one JSON line at the end of path. One write call of a
// file opened with O_APPEND, so records of concurrent writers do not mix.
func Append(path string, r Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode ancestry record: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open ancestry records: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write ancestry record: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close ancestry records: %w", err)
	}
	return nil
}
