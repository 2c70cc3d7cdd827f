package sdkcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/agentlock/agentlock"

// Every exported declaration of an SDK package — functions, methods of
// exported types, types with their exported fields and methods, variables
// and constants — names only types an outside program can import.
func TestSDKNamesNoInternalType(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, pkg := range SDK() {
		dir := filepath.Join(root, pkg)
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("SDK package %s has no Go files (%v)", pkg, err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			internal := internalImports(f)
			if len(internal) == 0 {
				continue
			}
			for _, where := range exportedMentions(f, internal) {
				t.Errorf("%s: exported %s names internal package %s", fset.Position(where.pos), where.decl, where.pkg)
			}
		}
	}
}

// No SDK package imports a front end, and the session service does not
// import the renderer of its outcomes (Renderers).
func TestSDKImportsNoFrontEnd(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, pkg := range SDK() {
		files, err := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("SDK package %s has no Go files (%v)", pkg, err)
		}
		forbidden := Renderers()[pkg]
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				rel, ok := strings.CutPrefix(path, module+"/")
				if !ok {
					continue
				}
				if strings.HasPrefix(rel, "internal/frontend/") || strings.HasPrefix(rel, "cmd/") || slices.Contains(forbidden, rel) {
					t.Errorf("%s: SDK package %s imports %s", name, pkg, path)
				}
			}
		}
	}
}

// The list above is the one docs/architecture.md gives.
func TestSDKListMatchesTheDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Public or internal: the SDK")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## Public or internal: the SDK" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, pkg := range SDK() {
		if !strings.Contains(section, "`"+pkg+"`") {
			t.Errorf("docs/architecture.md's SDK section does not name `%s`", pkg)
		}
	}
}

// internalImports maps the local names of f's imports of internal packages
// to their import paths.
func internalImports(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || !strings.HasPrefix(path, module+"/") || !slices.Contains(strings.Split(path, "/"), "internal") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	return names
}

type mention struct {
	pos  token.Pos
	decl string
	pkg  string
}

// exportedMentions returns where the exported declarations of f name one
// of the packages of internal.
func exportedMentions(f *ast.File, internal map[string]string) []mention {
	var found []mention
	look := func(decl string, node ast.Node) {
		if node == nil {
			return
		}
		ast.Inspect(node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit, *ast.BlockStmt:
				return false // bodies are not the API
			case *ast.StructType:
				for _, field := range n.Fields.List {
					if exportedField(field) {
						found = append(found, exportedMentionsIn(decl, field.Type, internal)...)
					}
				}
				return false
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok {
					if path, ok := internal[id.Name]; ok {
						found = append(found, mention{n.Pos(), decl, path})
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || d.Recv != nil && !exportedReceiver(d.Recv) {
				continue
			}
			look("func "+d.Name.Name, d.Type)
			if d.Recv != nil {
				look("method "+d.Name.Name, d.Recv)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						look("type "+s.Name.Name, s.Type)
					}
				case *ast.ValueSpec:
					for i, name := range s.Names {
						if !name.IsExported() {
							continue
						}
						look("var/const "+name.Name, s.Type)
						if i < len(s.Values) {
							look("var/const "+name.Name, s.Values[i])
						}
					}
				}
			}
		}
	}
	return found
}

// exportedMentionsIn is exportedMentions' look for one field's type.
func exportedMentionsIn(decl string, typ ast.Expr, internal map[string]string) []mention {
	var found []mention
	ast.Inspect(typ, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if path, ok := internal[id.Name]; ok {
					found = append(found, mention{sel.Pos(), decl, path})
				}
			}
		}
		return true
	})
	return found
}

func exportedField(f *ast.Field) bool {
	if len(f.Names) == 0 { // embedded: exported when its type name is
		t := f.Type
		if s, ok := t.(*ast.StarExpr); ok {
			t = s.X
		}
		switch t := t.(type) {
		case *ast.Ident:
			return t.IsExported()
		case *ast.SelectorExpr:
			return t.Sel.IsExported()
		}
		return false
	}
	return slices.ContainsFunc(f.Names, (*ast.Ident).IsExported)
}

func exportedReceiver(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// The check sees an internal type wherever an exported declaration can
// name one, and nowhere else.
func TestExportedMentionsFindsInternalTypes(t *testing.T) {
	src := `package p
import (
	"github.com/agentlock/agentlock/internal/x"
	y "github.com/agentlock/agentlock/internal/deep/z"
	"github.com/agentlock/agentlock/core"
)
func F(a x.A) core.State { return 0 }
func G() (y.B, error) { var v x.A; _ = v; return y.B{}, nil }
type T struct { Field x.A; hidden x.A; y.Embedded }
type I interface { M() x.A }
type Alias = x.A
var V x.A
func (T) M() *x.A { return nil }
func (u unexported) N() x.A { return x.A{} }
func private(x.A) {}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var decls []string
	for _, m := range exportedMentions(f, internalImports(f)) {
		decls = append(decls, m.decl)
	}
	want := []string{"func F", "func G", "type T", "type T", "type I", "type Alias", "var/const V", "func M"}
	if !slices.Equal(decls, want) {
		t.Errorf("mentions in %v, want %v", decls, want)
	}
}
