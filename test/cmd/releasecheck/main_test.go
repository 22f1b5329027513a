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

// TestVersionSaysWhatTheTreeIs checks rlock.Version against the required
// version and CHANGELOG.md: "X.Y.Z-dev" while changes are unreleased,
// "X.Y.Z" with its heading once released; -strict wants the release.
func TestVersionSaysWhatTheTreeIs(t *testing.T) {
	const released = "# Changelog\n\n## [Unreleased]\n\n## [0.2.0] - 2026-11-26\n\n- a change\n"
	const unreleased = "# Changelog\n\n## [Unreleased]\n\n### Added\n- a feature\n\n## [0.2.0] - 2026-11-26\n\n- a change\n"
	for _, c := range []struct {
		name, version, changelog, require string
		ok, strictOK                      bool
	}{
		{"a release", "0.2.0", released, "v0.2.0", true, true},
		{"changes after a release, version unchanged", "0.2.0", unreleased, "v0.2.0", false, false},
		{"changes after a release, require unchanged", "0.2.0-dev", unreleased, "v0.2.0", false, false},
		{"the next version in development", "0.3.0-dev", unreleased, "v0.3.0", true, false},
		{"the next version named before its release", "0.3.0", unreleased, "v0.3.0", false, false},
		{"a release without its heading", "0.3.0", released, "v0.3.0", false, false},
		{"a development version of a release", "0.2.0-dev", released, "v0.2.0", false, false},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "rlock"), 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			"rlock/version.go": "package rlock\n\nconst Version = \"" + c.version + "\"\n",
			"CHANGELOG.md":     c.changelog,
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := checkVersionNamed(dir, c.require, false); (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
		if err := checkVersionNamed(dir, c.require, true); (err == nil) != c.strictOK {
			t.Errorf("%s, strict: %v, want ok %v", c.name, err, c.strictOK)
		}
	}
	v, err := requiredVersion(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkVersionNamed(root, v, false); err != nil {
		t.Errorf("this tree: %v", err)
	}
}
