package main

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// addModule writes the module at dir, whose path is modPath, into the
// file:// GOPROXY at proxy as version: its list, .info, .mod and .zip, as
// the go command reads them (go help goproxy). The zip holds the files git
// tracks under dir, left out those of nested modules (a directory with
// its own go.mod), as a tag would serve them.
func addModule(proxy, dir, modPath, version string) error {
	files, err := moduleFiles(dir)
	if err != nil {
		return err
	}
	at := filepath.Join(proxy, filepath.FromSlash(escapePath(modPath)), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))
	for name, text := range map[string]string{"list": version + "\n", version + ".info": info, version + ".mod": string(gomod)} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return writeZip(filepath.Join(at, version+".zip"), dir, modPath+"@"+version, files)
}

// moduleFiles lists, slash-separated and relative to dir, the files git
// tracks under dir that belong to its module: not under a subdirectory
// with a go.mod of its own.
func moduleFiles(dir string) ([]string, error) {
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	var all, nestedDirs []string
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
			continue // deleted in the working tree
		}
		all = append(all, f)
		if path.Base(f) == "go.mod" && f != "go.mod" {
			nestedDirs = append(nestedDirs, path.Dir(f)+"/")
		}
	}
	var files []string
	for _, f := range all {
		inNested := false
		for _, d := range nestedDirs {
			inNested = inNested || strings.HasPrefix(f, d)
		}
		if !inNested {
			files = append(files, f)
		}
	}
	return files, nil
}

// writeZip writes the module zip at name: files, read from dir, each under
// the prefix "module@version/".
func writeZip(name, dir, prefix string, files []string) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(out)
	for _, f := range files {
		if err := addFile(zw, filepath.Join(dir, filepath.FromSlash(f)), prefix+"/"+f); err != nil {
			out.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// addFile copies the file at name into zw as zipName.
func addFile(zw *zip.Writer, name, zipName string) error {
	in, err := os.Open(name)
	if err != nil {
		return err
	}
	defer in.Close()
	w, err := zw.Create(zipName)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, in)
	return err
}

// escapePath is a module path as the proxy protocol spells it: each upper
// case letter as "!" and its lower case.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
