package interop

import (
	"os"
	"testing"

	"github.com/relock-go/relock/internal/redistest"
	"github.com/relock-go/relock/internal/testenv"
)

// srv is the redis-server that relock and the Redisson peers share.
var srv *redistest.Server

func TestMain(m *testing.M) {
	os.Exit(testenv.Main(func() int { return redistest.Main(m, &srv) }))
}
