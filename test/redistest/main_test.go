package redistest

import (
	"os"
	"testing"

	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its tests
// (go-redis's Sentinel watcher aside: testenv.SentinelWatch).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run, testenv.SentinelWatch...)) }
