package redistest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The version of a server comes from INFO server: Valkey's own name and
// version, else Redis's.
func TestServerVersion(t *testing.T) {
	for info, want := range map[string]string{
		"# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n":                            "redis 7.0.15",
		"# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n":        "valkey 8.0.1",
		"# Server\r\nredis_version:6.2.16\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n": "redis 6.2.16",
	} {
		if got := serverVersion(info); got != want {
			t.Errorf("serverVersion(%q) = %q, want %q", info, got, want)
		}
	}
}

// RELOCK_REDIS_SERVER chooses the binary every server runs: one that is
// not there fails Start with its name, and a path to redis-server runs it
// and reports its version.
func TestServerEnvChoosesTheBinary(t *testing.T) {
	chosen, err := Binary()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(ServerEnv, filepath.Join(t.TempDir(), "no-such-server"))
	if _, err := Start(); err == nil || !strings.Contains(err.Error(), ServerEnv) {
		t.Errorf("Start with a missing %s = %v, want an error naming it", ServerEnv, err)
	}
	t.Setenv(ServerEnv, chosen)
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := s.Version(); !strings.HasPrefix(v, "redis ") && !strings.HasPrefix(v, "valkey ") {
		t.Errorf("Version() = %q, want a server name and version", v)
	}
	t.Logf("%s runs %s", chosen, s.Version())
}

// A second Client sees what the first wrote (Client flushes nothing), and
// Reset empties the server and its command statistics.
func TestClientKeepsDataAndResetEmpties(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Client(t).Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Client(t).Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET k from a second Client = %q, %v; want the first Client's value", v, err)
	}
	s.Reset(t)
	rdb := s.Client(t)
	if n, err := rdb.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Fatalf("DBSIZE after Reset = %d, %v; want 0", n, err)
	}
	calls, err := CommandCalls(ctx, rdb)
	if err != nil {
		t.Fatal(err)
	}
	if calls["set"] != 0 || calls["get"] != 0 {
		t.Fatalf("command calls after Reset = %v, want no SET or GET counted", calls)
	}
}
