package rlock

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDurationDocsStateTheRule: the doc of every exported function or
// method that takes a duration says what a bad one gets (ErrInvalidDuration,
// or an Option's minimum), itself or through the method it refers to ("as
// Mutex.TryLock does"), and none still calls a negative wait "no limit".
func TestDurationDocsStateTheRule(t *testing.T) {
	docs := map[string]string{}     // "Type.Method" or "Func" → doc, one line
	embeds := map[string][]string{} // struct type → the types it embeds
	var durations []string          // the exported ones that take a duration
	paths, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil {
					name = receiver(d.Recv.List[0].Type) + "." + name
				}
				docs[name] = strings.Join(strings.Fields(d.Doc.Text()), " ")
				if d.Name.IsExported() && takesDuration(d.Type) {
					durations = append(durations, name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					if ts, ok := spec.(*ast.TypeSpec); ok {
						if st, ok := ts.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								if len(field.Names) == 0 {
									embeds[ts.Name.Name] = append(embeds[ts.Name.Name], receiver(field.Type))
								}
							}
						}
					}
				}
			}
		}
	}
	// lookup is the doc of Type.Method, promoted through embedded types.
	var lookup func(name string) (string, bool)
	lookup = func(name string) (string, bool) {
		if d, ok := docs[name]; ok {
			return d, true
		}
		typ, method, ok := strings.Cut(name, ".")
		if !ok {
			return "", false
		}
		for _, e := range embeds[typ] {
			if d, ok := lookup(e + "." + method); ok {
				return d, true
			}
		}
		return "", false
	}
	ref := regexp.MustCompile(`\b([A-Z]\w*\.)?[A-Z]\w*\b`)
	// states reports whether name's doc says what a bad duration gets, or
	// refers to a method whose doc does, within depth references.
	var states func(name string, depth int) bool
	states = func(name string, depth int) bool {
		d, ok := lookup(name)
		switch {
		case !ok || depth == 0:
			return false
		case strings.Contains(d, "ErrInvalidDuration"), strings.Contains(d, "must be at least"):
			return true
		}
		typ, _, _ := strings.Cut(name, ".")
		for _, r := range ref.FindAllString(d, -1) {
			if r != name && (states(r, depth-1) || states(typ+"."+r, depth-1)) {
				return true
			}
		}
		return false
	}
	for _, name := range durations {
		if strings.Contains(docs[name], "negative: no limit") {
			t.Errorf("%s's doc still calls a negative wait no limit", name)
		}
		if name == "ConstantBackoff" || name == "ExponentialBackoff" {
			continue // a Backoff is checked by WithSpin, whose doc says so
		}
		if !states(name, 3) {
			t.Errorf("%s takes a duration, but its doc neither says what a bad one gets nor refers to a method that does: %s", name, docs[name])
		}
	}
	if len(durations) < 20 {
		t.Fatalf("found %d functions taking a duration (%v): the parse missed some", len(durations), durations)
	}
}

// receiver is the name of a receiver's or an embedded field's type.
func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

// takesDuration reports whether a function has a time.Duration parameter.
func takesDuration(ft *ast.FuncType) bool {
	for _, field := range ft.Params.List {
		if sel, ok := field.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Duration" {
			return true
		}
	}
	return false
}
