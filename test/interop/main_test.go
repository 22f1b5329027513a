package interop

import (
	"os"
	"testing"

	"github.com/relock-go/relock/test/testenv"
)

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(m.Run))
}
