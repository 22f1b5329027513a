package rlock

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// engineFiles are the files of the engine: the Client and its wire, the
// wait protocol, the owner, its hold, the watchdog and the release, and
// the words they share. Every other file of the package is built on them
// (a kind, or what reads them all: Inspect, Locks); docs/architecture.md
// ("Files") tells which holds what.
var engineFiles = []string{
	// The Client and what it tells.
	"client.go", "kind_state.go", "wire.go", "background.go", "options.go",
	"errors.go", "observer.go", "activity.go", "label.go", "arguments.go",
	// The wait protocol.
	"wait_loop.go", "turn.go", "progress.go", "waiters.go", "line.go", "sleeper.go",
	"sender.go", "replica.go", "step_aside.go",
	// A lock owner, its hold and its release.
	"owner.go", "lock_kind.go", "handle.go", "attempt.go", "hold.go",
	"callbacks.go", "watchdog.go", "lease.go", "release.go",
	"release_request.go", "locker.go",
}

// TestEngineNamesNoKind: no engine file names what is declared outside
// the engine files (a kind, its turn, its state in the Client): the
// kinds register what the engine must call (kind state, the turns' hooks,
// lockKind's methods), so a new kind is new files and its registrations.
func TestEngineNamesNoKind(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, name := range engineFiles {
		if !slices.Contains(paths, name) {
			t.Errorf("engineFiles lists %s, which is not a file of the package", name)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	// The standard library is read from its export data; the modules the
	// package imports are left empty (their errors ignored): the check
	// reads only the package's own names.
	std := importer.Default()
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if p, err := std.Import(path); err == nil {
				return p, nil
			}
			p := types.NewPackage(path, filepath.Base(path))
			p.MarkComplete()
			return p, nil
		}),
		Error: func(error) {},
	}
	pkg, _ := conf.Check("github.com/relock-go/relock/rlock", fset, files, info)
	for _, v := range namedAbove(fset, pkg, info) {
		t.Errorf("%s: an engine file names what is built on the engine (the kind declares a hook the engine calls instead)", v)
	}
}

// namedAbove lists the names that engine files take from the package's
// other files, as "file:line: names X (declared in file)".
func namedAbove(fset *token.FileSet, pkg *types.Package, info *types.Info) []string {
	var found []string
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !obj.Pos().IsValid() {
			continue
		}
		at := fset.Position(id.Pos())
		from := filepath.Base(at.Filename)
		decl := filepath.Base(fset.Position(obj.Pos()).Filename)
		if slices.Contains(engineFiles, from) && !slices.Contains(engineFiles, decl) {
			found = append(found, fmt.Sprintf("%s:%d: names %s (declared in %s)", from, at.Line, obj.Name(), decl))
		}
	}
	slices.Sort(found)
	return found
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
