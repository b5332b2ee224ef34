package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheCommandLayerHoldsFlagsWiringAndRendering: the command layer stays what it is for, flags, wiring and
// rendering, with what it runs below it (session, bisect, gate, analysis, ...): at most 2,000 lines of non-test Go,
// no function over 60 lines. A command that grows past either moves its work into the package that owns it.
func TestTheCommandLayerHoldsFlagsWiringAndRendering(t *testing.T) {
	const maxLines, maxFuncLines = 2000, 60
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	total := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		total += strings.Count(string(src), "\n")
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok {
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
					t.Errorf("%s: %s is %d lines, over %d: move its work below the command layer", name, fn.Name.Name, n, maxFuncLines)
				}
			}
		}
	}
	if total > maxLines {
		t.Errorf("cmd/bench-bridge has %d lines of non-test Go, over %d: move work below the command layer", total, maxLines)
	}
}
