package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/relock-go/relock/test/redistest"
)

// A peer's JVM spends most of its start-up loading and verifying the
// classes of Redisson and Netty. An application class-data archive (CDS,
// JDK 13 and later) holds them already parsed: with it a peer starts on
// about half the CPU time, which is what bounds the package's wall time on
// a small machine where many peers start. The archive changes how classes
// are loaded, nothing of what runs: the peer is the same Redisson.
//
// The archive is made once per jar and java, by one peer run that dumps
// the classes it loaded at exit, and kept in the user's cache directory
// for later runs. Any failure leaves the peers without it.

var (
	archiveOnce sync.Once
	archivePath string // "" when there is none
)

// archiveFlags are the JVM flags that make a peer of jar use the class-data
// archive, made first if need be; none when it cannot be had.
func archiveFlags(jar string) []string {
	archiveOnce.Do(func() { archivePath = classArchive(jar) })
	if archivePath == "" {
		return nil
	}
	return []string{"-XX:SharedArchiveFile=" + archivePath}
}

// classArchive returns the path of the class-data archive of jar under the
// java on the PATH, dumping it if it is not there yet, or "".
func classArchive(jar string) string {
	key, err := archiveKey(jar)
	if err != nil {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "relock-interop")
	path := filepath.Join(dir, "redisson-peer-"+key+".jsa")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if os.MkdirAll(dir, 0o755) != nil {
		return ""
	}
	tmp, err := os.CreateTemp(dir, "dump-*.jsa")
	if err != nil {
		return ""
	}
	_ = tmp.Close()
	_ = os.Remove(tmp.Name()) // the JVM writes it anew
	if dumpArchive(jar, tmp.Name()) != nil || os.Rename(tmp.Name(), path) != nil {
		_ = os.Remove(tmp.Name())
		return ""
	}
	return path
}

// archiveKey names an archive after what it depends on: the jar (path,
// size, modification time) and the java that made it.
func archiveKey(jar string) (string, error) {
	fi, err := os.Stat(jar)
	if err != nil {
		return "", err
	}
	version, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s", jar, fi.Size(), fi.ModTime().UnixNano(), version)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// dumpArchive runs one fair-lock waiter of jar against a scratch
// redis-server (warm-up, then an uncontended acquisition) and has the JVM
// write the classes it loaded to path when it exits.
func dumpArchive(jar, path string) error {
	s, err := redistest.Start()
	if err != nil {
		return err
	}
	defer s.Close()
	cmd := exec.Command("java", "-XX:ArchiveClassesAtExit="+path, "-jar", jar,
		"wait", "--addr", s.Addr, "--name", "archive", "--kind", "fair")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	_, err = os.Stat(path)
	return err
}
