package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// JarEnv names the Redisson peer's jar, as for the interop tests.
const JarEnv = "RELOCK_REDISSON_PEER"

// ModuleRoot returns the directory of the proof module (test/proof), the
// module of the working directory.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	b, err := os.ReadFile(mod)
	if err != nil || !strings.HasPrefix(string(b), "module github.com/relock-go/relock/test/proof\n") {
		return "", fmt.Errorf("run from the proof module (test/proof), not %q", mod)
	}
	return filepath.Dir(mod), nil
}

// JarPath returns the Redisson peer's jar: jar if set, else $JarEnv, else
// shared/interop/redisson-peer.jar beside the repository; an error names
// what is missing (the jar, or java and javac 17).
func JarPath(root, jar string) (string, error) {
	if jar == "" {
		jar = os.Getenv(JarEnv)
	}
	if jar == "" {
		jar = filepath.Join(root, "..", "..", "..", "shared", "interop", "redisson-peer.jar")
	}
	jar = filepath.Clean(jar)
	if _, err := os.Stat(jar); err != nil {
		return "", fmt.Errorf("the Redisson peer's jar is not at %s: set %s", jar, JarEnv)
	}
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			return "", fmt.Errorf("no %s on the PATH (Debian: apt-get install -y openjdk-17-jdk-headless)", tool)
		}
	}
	return jar, nil
}

// buildWorker builds the Go worker (package worker of the module at root)
// as bin/worker under dir.
func buildWorker(root, dir string) (string, error) {
	bin := filepath.Join(dir, "bin", "worker")
	cmd := exec.Command("go", "build", "-o", bin, "./worker")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./worker: %v\n%s", err, out)
	}
	return bin, nil
}

// javaClasses returns a directory of the Java worker's classes (the
// sources in java/ under root) compiled against jar: from the user's cache
// when the same sources, jar and javac made them before, else compiled
// there now.
func javaClasses(root, jar string) (string, error) {
	srcs, err := filepath.Glob(filepath.Join(root, "java", "proof", "*.java"))
	if err != nil || len(srcs) == 0 {
		return "", fmt.Errorf("no Java worker sources under %s", filepath.Join(root, "java"))
	}
	sort.Strings(srcs)
	key, err := classesKey(srcs, jar)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	cache = filepath.Join(cache, "relock-proof")
	classes := filepath.Join(cache, "classes-"+key)
	if _, err := os.Stat(classes); err == nil {
		return classes, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "javac-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"-nowarn", "-encoding", "UTF-8", "-cp", jar, "-d", tmp}, srcs...)
	if out, err := exec.Command("javac", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("javac the Java worker: %v\n%s", err, out)
	}
	// Another run may have made the same classes meanwhile: theirs are as
	// good.
	if err := os.Rename(tmp, classes); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(classes); serr != nil {
			return "", err
		}
	}
	return classes, nil
}

// classesKey names compiled classes after what they depend on: the
// sources' contents, the jar (path, size, modification time) and javac's
// version.
func classesKey(srcs []string, jar string) (string, error) {
	h := sha256.New()
	for _, src := range srcs {
		f, err := os.Open(src)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00", filepath.Base(src))
		_, err = io.Copy(h, f)
		_ = f.Close()
		if err != nil {
			return "", err
		}
	}
	fi, err := os.Stat(jar)
	if err != nil {
		return "", err
	}
	version, err := exec.Command("javac", "-version").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("javac -version: %w", err)
	}
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d\x00%s", jar, fi.Size(), fi.ModTime().UnixNano(), version)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
