// Command releasecheck proves that the repository's modules can be
// published at the version the nested modules require of the library:
// that a program outside the repository, with no replace directive, gets
// github.com/relock-go/relock/rlock/relockotel at that version, and with
// it the library at the same version, and builds; and that `go install
// github.com/relock-go/relock/cmd/relock@VERSION` works.
//
// It serves the working tree's modules as they would be tagged, as module
// zips in a file:// GOPROXY placed before the public proxy (which serves
// every other dependency), and runs the go command in a scratch module
// with GOWORK=off and GONOSUMDB for the modules not yet published. It is
// `make release-check`; docs/releasing.md gives the tagging order.
//
//	go run ./test/cmd/releasecheck            # the version relockotel requires; rlock.Version says what the tree is
//	go run ./test/cmd/releasecheck -strict    # also: the tree is that release (rlock.Version and CHANGELOG.md name it)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// libPath is the library's module path.
const libPath = "github.com/relock-go/relock"

// nested are the modules beside the library, by directory; the first is
// the published one a consumer gets.
var nested = []string{"rlock/relockotel", "rlock/relockgocron", "rlock/relockgocron/compare", "examples/demo", "examples/scheduler", "examples/gocron", "bench"}

func main() {
	strict := flag.Bool("strict", false, "also require the tree to be the release: rlock.Version and a CHANGELOG.md heading name the version, nothing unreleased (run before tagging)")
	root := flag.String("root", ".", "the repository's root directory")
	flag.Parse()
	if err := check(*root, *strict); err != nil {
		fmt.Fprintln(os.Stderr, "release-check:", err)
		os.Exit(1)
	}
}

// check runs every check on the repository at root.
func check(root string, strict bool) error {
	version, err := requiredVersion(root)
	if err != nil {
		return err
	}
	fmt.Printf("release-check: the nested modules require %s %s\n", libPath, version)
	if err := checkVersionNamed(root, version, strict); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "relock-release-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	proxy := filepath.Join(tmp, "proxy")
	if err := addModule(proxy, root, libPath, version); err != nil {
		return err
	}
	otelPath := libPath + "/" + nested[0]
	if err := addModule(proxy, filepath.Join(root, nested[0]), otelPath, version); err != nil {
		return err
	}
	return consume(tmp, proxy, otelPath, version)
}

// requireLine finds a go.mod's require of the library.
var requireLine = regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(libPath) + `\s+(v\S+)`)

// requiredVersion is the version of the library every nested module
// requires: one version, a real one (not a pseudo-version placeholder).
func requiredVersion(root string) (string, error) {
	var version string
	for _, dir := range nested {
		data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			return "", err
		}
		m := requireLine.FindSubmatch(data)
		if m == nil {
			return "", fmt.Errorf("%s/go.mod does not require %s", dir, libPath)
		}
		v := string(m[1])
		switch {
		case !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(v):
			return "", fmt.Errorf("%s/go.mod requires %s %s: not a release version (vX.Y.Z)", dir, libPath, v)
		case version != "" && v != version:
			return "", fmt.Errorf("%s/go.mod requires %s %s, %s/go.mod %s: require one version", dir, libPath, v, nested[0], version)
		}
		version = v
	}
	return version, nil
}

// checkVersionNamed checks that rlock.Version says what the tree is, by
// version (the one the nested modules require) and CHANGELOG.md: while its
// [Unreleased] section lists changes, the next version in development,
// "X.Y.Z-dev", with no [X.Y.Z] heading yet; once they are moved under
// "## [X.Y.Z]", the release "X.Y.Z". With strict (right before tagging) it
// wants the release; without, an unreleased tree is noted.
func checkVersionNamed(root, version string, strict bool) error {
	src, err := os.ReadFile(filepath.Join(root, "rlock", "version.go"))
	if err != nil {
		return err
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		return err
	}
	m := versionConst.FindSubmatch(src)
	if m == nil {
		return fmt.Errorf("rlock/version.go has no const Version = \"...\"")
	}
	have, bare := string(m[1]), strings.TrimPrefix(version, "v")
	unreleased, released := hasUnreleased(string(changelog)), strings.Contains(string(changelog), "## ["+bare+"]")
	switch {
	case unreleased && released:
		return fmt.Errorf("CHANGELOG.md lists unreleased changes, and %s is released already: the nested modules must require the next version (docs/releasing.md)", bare)
	case unreleased && have != bare+"-dev":
		return fmt.Errorf("rlock.Version is %q; CHANGELOG.md lists unreleased changes for %s, so it must be %q (docs/releasing.md)", have, version, bare+"-dev")
	case !unreleased && (have != bare || !released):
		return fmt.Errorf("rlock.Version is %q and CHANGELOG.md lists no unreleased change: want %q and a ## [%s] heading (docs/releasing.md)", have, bare, bare)
	case !unreleased:
		return nil
	}
	msg := fmt.Sprintf("rlock.Version is %q: move CHANGELOG.md's [Unreleased] entries under ## [%s] and set it to %q", have, bare, bare)
	if strict {
		return fmt.Errorf("%s before tagging %s (docs/releasing.md)", msg, version)
	}
	fmt.Printf("release-check: note, before tagging %s: %s\n", version, msg)
	return nil
}

// versionConst finds rlock.Version's value in rlock/version.go.
var versionConst = regexp.MustCompile(`const Version = "([^"]*)"`)

// hasUnreleased reports whether changelog's ## [Unreleased] section lists
// an entry (a line starting "- ").
func hasUnreleased(changelog string) bool {
	_, section, ok := strings.Cut(changelog, "## [Unreleased]")
	if !ok {
		return false
	}
	if end := strings.Index(section, "\n## ["); end >= 0 {
		section = section[:end]
	}
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "- ") {
			return true
		}
	}
	return false
}

// consume makes a scratch module outside the repository that imports the
// library and relockotel, gets relockotel at version through proxy, builds
// it, checks that the library resolved to version, and installs the
// relock command at version.
func consume(tmp, proxy, otelPath, version string) error {
	dir := filepath.Join(tmp, "consumer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"go.mod": "module example.com/consumer\n\ngo 1.24.0\n",
		"main.go": `package main

import (
	"github.com/redis/go-redis/v9"

	"` + libPath + `/rlock"
	"` + otelPath + `"
)

func main() {
	obs, err := relockotel.NewObserver()
	if err != nil {
		panic(err)
	}
	locks, err := rlock.New(redis.NewClient(&redis.Options{}), rlock.WithObserver(obs))
	if err != nil {
		panic(err)
	}
	defer locks.Close()
	_ = locks.NewMutex("x")
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	env := append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",https://proxy.golang.org",
		"GONOSUMDB="+libPath, "GONOSUMCHECK=", "GOPRIVATE=", "GONOPROXY=",
		"GOFLAGS=-mod=mod", "GOWORK=off", "GOBIN="+filepath.Join(tmp, "bin"))
	steps := [][]string{
		{"go", "get", otelPath + "@" + version},
		{"go", "mod", "tidy"},
		{"go", "build", "-o", os.DevNull, "."},
		{"go", "install", libPath + "/cmd/relock@" + version},
		{filepath.Join(tmp, "bin", "relock"), "version"},
	}
	for _, args := range steps {
		fmt.Printf("release-check: %s\n", strings.Join(args, " "))
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(args, " "), err)
		}
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Replace}}", libPath)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list -m %s: %w", libPath, err)
	}
	if got := strings.TrimSpace(string(out)); got != version+" <nil>" {
		return fmt.Errorf("the consumer resolved %s to %q, want %s with no replace", libPath, got, version)
	}
	fmt.Printf("release-check: ok: a consumer gets %s@%s with %s %s, and installs the relock command\n", otelPath, version, libPath, version)
	return nil
}
