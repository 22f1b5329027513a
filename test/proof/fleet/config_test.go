package fleet

import (
	"testing"

	"github.com/relock-go/relock/test/proof/store"
)

// A run of Go-only workloads has no Java process, which would run every
// workload; one with a workload Redisson shares keeps them.
func TestGoOnlyWorkloadsRunNoJavaProcess(t *testing.T) {
	for _, tc := range []struct {
		workloads []string
		java      int
	}{
		{store.GoOnly, 0},
		{[]string{store.FairRW, store.Plain}, 2},
		{nil, 2},
	} {
		c := Config{Dir: t.TempDir(), Go: 3, Java: 2, Workloads: tc.workloads}
		if err := c.defaults(); err != nil {
			t.Fatal(err)
		}
		if c.Java != tc.java {
			t.Errorf("workloads %v: %d Java processes, want %d", tc.workloads, c.Java, tc.java)
		}
	}
}
