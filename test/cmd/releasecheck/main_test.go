package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The repository's root, from this package's directory.
var root = filepath.Join("..", "..", "..")

// TestModuleFiles checks that the library's zip holds its own files and
// none of a nested module's.
func TestModuleFiles(t *testing.T) {
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout: the zip's files are the ones git tracks")
	}
	files, err := moduleFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"go.mod", "LICENSE", "rlock/client.go", "cmd/relock/main.go"} {
		if !slices.Contains(files, want) {
			t.Errorf("the library's zip lacks %s", want)
		}
	}
	for _, f := range files {
		for _, dir := range nested {
			if strings.HasPrefix(f, dir+"/") {
				t.Errorf("the library's zip holds %s, a file of the module %s", f, dir)
			}
		}
	}
}

// TestRequiredVersion checks that the nested modules require one release
// version of the library.
func TestRequiredVersion(t *testing.T) {
	v, err := requiredVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v, "v") || strings.Contains(v, "-") {
		t.Errorf("required version %q is not a release", v)
	}
}
