package main_test

// The --json contract: every record agentlock prints is checked against
// the JSON Schema of its kind in docs/schema/, by a small validator of the
// part of JSON Schema those files use (type, const, enum, properties,
// required, additionalProperties: false, items, minimum).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaDir holds one JSON Schema per record kind.
const schemaDir = "../../docs/schema"

// jsonSchema is the subset of JSON Schema that docs/schema uses.
type jsonSchema struct {
	Type                 any                    `json:"type"`
	Const                any                    `json:"const"`
	Enum                 []any                  `json:"enum"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Items                *jsonSchema            `json:"items"`
	Minimum              *float64               `json:"minimum"`
}

// loadSchema reads the schema of a record kind.
func loadSchema(kind string) (*jsonSchema, error) {
	if !regexp.MustCompile(`^[a-z]+$`).MatchString(kind) {
		return nil, fmt.Errorf("record kind %q is not a schema name", kind)
	}
	data, err := os.ReadFile(filepath.Join(schemaDir, kind+".json"))
	if err != nil {
		return nil, fmt.Errorf("no schema for record kind %q: %w", kind, err)
	}
	var s jsonSchema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("schema %s: %w", kind, err)
	}
	return &s, nil
}

// validate returns what is wrong with v (decoded JSON) under s, at where.
func (s *jsonSchema) validate(v any, where string) []string {
	var bad []string
	if s.Type != nil && !typeMatches(s.Type, v) {
		return []string{fmt.Sprintf("%s: %s is not of type %v", where, compact(v), s.Type)}
	}
	if s.Const != nil && compact(s.Const) != compact(v) {
		bad = append(bad, fmt.Sprintf("%s: %s, want %s", where, compact(v), compact(s.Const)))
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return compact(e) == compact(v) }) {
		bad = append(bad, fmt.Sprintf("%s: %s is not one of %s", where, compact(v), compact(s.Enum)))
	}
	if n, ok := v.(float64); ok && s.Minimum != nil && n < *s.Minimum {
		bad = append(bad, fmt.Sprintf("%s: %v is less than %v", where, n, *s.Minimum))
	}
	if obj, ok := v.(map[string]any); ok {
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				bad = append(bad, fmt.Sprintf("%s: required %q is missing", where, r))
			}
		}
		for k, val := range obj {
			if sub, ok := s.Properties[k]; ok {
				bad = append(bad, sub.validate(val, where+"."+k)...)
			} else if s.AdditionalProperties != nil && !*s.AdditionalProperties {
				bad = append(bad, fmt.Sprintf("%s: %q is not in the schema", where, k))
			}
		}
	}
	if arr, ok := v.([]any); ok && s.Items != nil {
		for i, it := range arr {
			bad = append(bad, s.Items.validate(it, fmt.Sprintf("%s[%d]", where, i))...)
		}
	}
	return bad
}

// typeMatches reports whether v has the JSON Schema type t (a name or a
// list of names).
func typeMatches(t, v any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(one any) bool { return typeMatches(one, v) })
	}
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		n, ok := v.(float64)
		return ok && n == float64(int64(n))
	case "null":
		return v == nil
	}
	return false
}

func compact(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

// validateRecords checks every line of text against the schema of its
// kind; want, when not empty, are the kinds allowed.
func validateRecords(text string, want []string) error {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		return fmt.Errorf("no JSON records")
	}
	for i, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return fmt.Errorf("line %d is not a JSON object: %v: %s", i+1, err, line)
		}
		kind, _ := rec["kind"].(string)
		if len(want) > 0 && !slices.Contains(want, kind) {
			return fmt.Errorf("line %d: kind %q, want one of %v: %s", i+1, kind, want, line)
		}
		s, err := loadSchema(kind)
		if err != nil {
			return fmt.Errorf("line %d: %v: %s", i+1, err, line)
		}
		if bad := s.validate(rec, kind); len(bad) > 0 {
			return fmt.Errorf("line %d does not match docs/schema/%s.json:\n  %s\n%s", i+1, kind, strings.Join(bad, "\n  "), line)
		}
	}
	return nil
}

// cmdSchema: schema SOURCE [KIND...] — every line of SOURCE (stdout,
// stderr or a file) is a JSON record valid under the schema of its kind in
// docs/schema/, and of one of KINDs when given.
func cmdSchema(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "schema")
	if len(args) < 1 {
		ts.Fatalf("usage: schema SOURCE [KIND...]")
	}
	if err := validateRecords(ts.ReadFile(args[0]), args[1:]); err != nil {
		ts.Fatalf("%s: %v", args[0], err)
	}
}

// The validator refuses what the schemas forbid, so that the script that
// runs every command cannot pass by accident.
func TestSchemaValidatorRefuses(t *testing.T) {
	for _, tc := range []struct{ name, line string }{
		{"unknown kind", `{"kind":"nope"}`},
		{"no kind", `{"path":"/p"}`},
		{"missing required", `{"kind":"lock"}`},
		{"unknown field", `{"kind":"lock","path":"/p","holder":"x"}`},
		{"wrong type", `{"kind":"lock","path":"/p","released":["/p"]}`},
		{"bad enum", `{"kind":"lock","path":"/p","state":"gone"}`},
		{"negative age", `{"kind":"lock","path":"/p","age":-1}`},
		{"null list", `{"kind":"session","session_id":"a","provider":"","ai_version":"","started_at":"","working_on":"","todo":{"past":[],"present":[],"future":[]},"space":null,"do_not_touch":[],"status":"OnWorking","issues":"","handoff":"","registry":"r","idle":false}`},
		{"bad item", `{"kind":"session","session_id":"a","provider":"","ai_version":"","started_at":"","working_on":"","todo":{"past":[1],"present":[],"future":[]},"space":[],"do_not_touch":[],"status":"OnWorking","issues":"","handoff":"","registry":"r","idle":false}`},
		{"not an integer", `{"kind":"error","error":"x","exit_code":2.5}`},
	} {
		assert.Error(t, validateRecords(tc.line+"\n", nil), tc.name)
	}
	assert.NoError(t, validateRecords(`{"kind":"lock","path":"/p","released":true}`+"\n", nil))
}

// The script that checks every command's --json output against the
// schemas names every command of the tree: every section of docs/cli.md,
// which TestCLIReference keeps equal to the tree.
func TestJSONScriptCoversEveryCommand(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(scriptDir, "cli", "json_every_command.txtar"))
	require.NoError(t, err)
	script := string(data)
	ref, err := os.ReadFile(cliReference)
	require.NoError(t, err)
	sections := regexp.MustCompile(`(?m)^## agentlock (\S+)`).FindAllStringSubmatch(string(ref), -1)
	require.NotEmpty(t, sections)
	for _, m := range sections {
		name := m[1]
		switch name {
		case "hook", "completion", "help", "docs":
			continue // their output is a harness's protocol, a script, or help: not records
		}
		assert.Regexp(t, `(?m)^(exec|exits [0-3]) agentlock `+regexp.QuoteMeta(name)+`( .*)? --json`, script, "agentlock %s --json is not run", name)
	}
}
