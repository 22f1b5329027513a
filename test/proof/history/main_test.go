package history

import (
	"os"
	"testing"

	"github.com/relock-go/relock/test/testenv"
)

// TestMain fails the package if a goroutine of the module outlives its tests.
func TestMain(m *testing.M) { os.Exit(testenv.Main(m.Run)) }
