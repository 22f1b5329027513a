package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// trackedFiles lists the files of the repository at root that a scratch
// copy holds: those git tracks, and those it would track (not ignored),
// as they are in the working tree, so that uncommitted changes are tested
// too. A tracked file deleted from the working tree is left out.
func trackedFiles(root string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", root, err)
	}
	var files []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, f)); err != nil {
			continue
		}
		files = append(files, f)
	}
	return files, nil
}

// copyTree copies files (slash-separated, relative to root) from root to
// dst, keeping each file's mode and each symbolic link as one.
func copyTree(root, dst string, files []string) error {
	for _, f := range files {
		from, to := filepath.Join(root, filepath.FromSlash(f)), filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		info, err := os.Lstat(from)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(from)
			if err != nil {
				return err
			}
			if err := os.Symlink(target, to); err != nil {
				return err
			}
		case info.Mode().IsRegular():
			data, err := os.ReadFile(from)
			if err != nil {
				return err
			}
			if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
				return err
			}
		}
	}
	return nil
}

// repoRoot is the root of the git work tree that holds the current
// directory.
func repoRoot() (string, error) {
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("not in a git work tree: %w", err)
	}
	return string(bytes.TrimSpace(out)), nil
}
