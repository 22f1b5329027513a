package fleet

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/relock-go/relock/test/javac"
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
// sources in java/ under root) compiled against jar, from the user's cache
// when it has them (javac.Classes).
func javaClasses(root, jar string) (string, error) {
	srcs, err := filepath.Glob(filepath.Join(root, "java", "proof", "*.java"))
	if err != nil || len(srcs) == 0 {
		return "", fmt.Errorf("no Java worker sources under %s", filepath.Join(root, "java"))
	}
	return javac.Classes("relock-proof", jar, srcs...)
}
