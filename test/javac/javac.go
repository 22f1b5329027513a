// Package javac compiles the tests' own Java programs against the Redisson
// peer's jar (javac: a JDK, not only a JRE) and keeps the classes in the
// user's cache, so that a test run compiles them once.
package javac

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
)

// Classes returns a directory of srcs' classes compiled against jar:
// from the user's cache (under a directory named cache) when the same
// sources, jar and javac made them before, else compiled there now.
// Concurrent callers may each compile; every one gets a complete
// directory.
func Classes(cache, jar string, srcs ...string) (string, error) {
	if len(srcs) == 0 {
		return "", errors.New("javac: no sources")
	}
	srcs = append([]string(nil), srcs...)
	sort.Strings(srcs)
	key, err := classesKey(srcs, jar)
	if err != nil {
		return "", err
	}
	root, err := os.UserCacheDir()
	if err != nil {
		root = os.TempDir()
	}
	root = filepath.Join(root, cache)
	classes := filepath.Join(root, "classes-"+key)
	if _, err := os.Stat(classes); err == nil {
		return classes, nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(root, "javac-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"-nowarn", "-encoding", "UTF-8", "-cp", jar, "-d", tmp}, srcs...)
	if out, err := exec.Command("javac", args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("javac %v: %v\n%s", srcs, err, out)
	}
	// Another caller may have made the same classes meanwhile: theirs are
	// as good.
	if err := os.Rename(tmp, classes); err != nil {
		if _, serr := os.Stat(classes); serr != nil {
			return "", err
		}
	}
	return classes, nil
}

// classesKey names compiled classes after what they depend on: the
// sources' names and contents, the jar (path, size, modification time)
// and javac's version.
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
		return "", fmt.Errorf("javac -version: %v: %s", err, version)
	}
	fmt.Fprintf(h, "\x00%s\x00%d\x00%d\x00%s", jar, fi.Size(), fi.ModTime().UnixNano(), version)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
