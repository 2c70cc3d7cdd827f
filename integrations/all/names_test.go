package all_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
)

// Everything an agent knows is declared by the agent, in its folder: no
// code elsewhere in the module decides by an agent's name. The check reads
// the syntax of every Go file outside the agents' folders (tests and
// generated files aside) and refuses a built-in agent's name as a string
// literal that is a case of a switch, a side of == or !=, or a key of a
// map literal — the shapes a decision by name takes. A name in a message,
// an argument or a comment is not a decision.
func TestNoCodeDecidesByAnAgentName(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	names := all.Names()
	agentFolders := map[string]bool{}
	for _, name := range names {
		agentFolders[filepath.Join(root, "integrations", name)] = true
	}
	fset := token.NewFileSet()
	var found []string
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, err := strconv.Unquote(lit.Value)
		return err == nil && slices.Contains(names, s)
	}
	report := func(n ast.Node, what string) {
		found = append(found, fset.Position(n.Pos()).String()+": "+what)
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if agentFolders[path] || path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CaseClause:
				for _, e := range n.List {
					if isName(e) {
						report(e, "a switch case on an agent's name")
					}
				}
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && (isName(n.X) || isName(n.Y)) {
					report(n, "a comparison with an agent's name")
				}
			case *ast.KeyValueExpr:
				if isName(n.Key) {
					report(n, "a map keyed by an agent's name")
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "declare what an agent knows in its folder (integrations/<name>/: its manifest or its Go extension), not by its name elsewhere")
}
