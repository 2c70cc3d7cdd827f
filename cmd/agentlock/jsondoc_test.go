package main_test

// docs/json.md documents every field a record can hold: each field of the
// report types is a property of its kind's schema in docs/schema/, and
// each property is a row of the kind's table in docs/json.md.

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/report"
)

// recordTypes are the types whose values are printed as --json records,
// with their kind, by package and type name.
var recordTypes = []struct {
	pkg, name, kind string
	typ             reflect.Type
}{
	{"report", "Acquire", "lock", reflect.TypeFor[report.Acquire]()},
	{"report", "Release", "lock", reflect.TypeFor[report.Release]()},
	{"report", "Check", "lock", reflect.TypeFor[report.Check]()},
	{"report", "Heartbeat", "lock", reflect.TypeFor[report.Heartbeat]()},
	{"report", "Status", "lock", reflect.TypeFor[report.Status]()},
	{"report", "Session", "session", reflect.TypeFor[report.Session]()},
	{"report", "Finish", "session", reflect.TypeFor[report.Finish]()},
	{"report", "Change", "change", reflect.TypeFor[report.Change]()},
	{"report", "Conflict", "conflict", reflect.TypeFor[report.Conflict]()},
	{"report", "DoctorCheck", "check", reflect.TypeFor[report.DoctorCheck]()},
	{"report", "Error", "error", reflect.TypeFor[report.Error]()},
	{"report", "Whoami", "whoami", reflect.TypeFor[report.Whoami]()},
	{"report", "Env", "env", reflect.TypeFor[report.Env]()},
	{"report", "Version", "version", reflect.TypeFor[report.Version]()},
	{"audit", "Entry", "audit", reflect.TypeFor[audit.Entry]()},
}

// kindTypes returns the struct types of the package in dir that hold a
// field tagged json:"kind": the record types.
func kindTypes(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := spec.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Tag != nil && strings.Contains(field.Tag.Value, `json:"kind"`) {
					out = append(out, spec.Name.Name)
				}
			}
			return true
		})
	}
	return out
}

// jsonFields are the JSON names a value of type t can hold, as
// encoding/json names them: embedded structs flattened, the fields of a
// nested object as "parent.child" and those of a list's objects as
// "parent[].child".
func jsonFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, jsonFields(ft, prefix)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, prefix+name)
		switch {
		case ft.Kind() == reflect.Struct:
			out = append(out, jsonFields(ft, prefix+name+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, jsonFields(ft.Elem(), prefix+name+"[].")...)
		}
	}
	return out
}

// schemaFields are the properties of a schema, named as jsonFields names
// them.
func schemaFields(s *jsonSchema, prefix string) []string {
	var out []string
	for name, p := range s.Properties {
		out = append(out, prefix+name)
		out = append(out, schemaFields(p, prefix+name+".")...)
		if p.Items != nil {
			out = append(out, schemaFields(p.Items, prefix+name+"[].")...)
		}
	}
	return out
}

// Every record type is listed above (a new one is found by its kind
// field), and every field it can print is a property of its kind's
// schema, nested ones included.
func TestRecordTypesMatchTheSchemas(t *testing.T) {
	var listed []string
	for _, rt := range recordTypes {
		listed = append(listed, rt.pkg+"."+rt.name)
	}
	for pkg, dir := range map[string]string{"report": "../../report", "audit": "../../audit"} {
		for _, name := range kindTypes(t, dir) {
			assert.Contains(t, listed, pkg+"."+name, "%s.%s prints a record: list it with its kind", pkg, name)
		}
	}
	for _, rt := range recordTypes {
		s, err := loadSchema(rt.kind)
		require.NoError(t, err)
		props := schemaFields(s, "")
		for _, f := range jsonFields(rt.typ, "") {
			assert.Contains(t, props, f, "%s.%s prints %q, which docs/schema/%s.json does not define", rt.pkg, rt.name, f, rt.kind)
		}
	}
}

// docs/json.md has a section for every kind of record, whose table names
// each property of the kind's schema (a nested object's properties in
// its parent's row).
func TestJSONDocNamesEveryField(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "json.md"))
	require.NoError(t, err)
	doc := string(data)
	kinds, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, kinds)
	for _, file := range kinds {
		kind := strings.TrimSuffix(filepath.Base(file), ".json")
		section := sectionOf(doc, "## "+kind)
		if !assert.NotEmpty(t, section, "docs/json.md has no section ## %s", kind) {
			continue
		}
		named := tableNames(section)
		rows := map[string]string{} // a top-level field's row
		for _, l := range section {
			if strings.HasPrefix(l.text, "|") {
				for _, m := range inlineCode.FindAllString(tableCells(l.text)[0], -1) {
					rows[strings.Trim(m, "`")] = l.text
				}
			}
		}
		s, err := loadSchema(kind)
		require.NoError(t, err)
		fields := schemaFields(s, "")
		slices.Sort(fields)
		for _, f := range fields {
			parent, child, nested := strings.Cut(f, ".")
			parent = strings.TrimSuffix(parent, "[]")
			if !nested {
				assert.True(t, named[f], "docs/json.md's ## %s table does not name %q (docs/schema/%s.json)", kind, f, kind)
				continue
			}
			assert.Contains(t, rows[parent], "`"+child+"`", "docs/json.md's ## %s: the row of %q does not name %q", kind, parent, child)
		}
	}
}
