package debuglocks_test

import (
	"os"
	"testing"

	"github.com/relock-go/relock/test/redistest"
	"github.com/relock-go/relock/test/testenv"
)

// srv is the real redis-server shared by this package's tests.
var srv *redistest.Server

// TestMain runs the tests on a real redis-server and fails the package if a
// goroutine of the module outlives them.
func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int { return redistest.Main(m, &srv) }))
}
