package testkit

import (
	"testing"

	"github.com/relock-go/relock/test/faultproxy"
)

// StartProxy starts a fault proxy to target (host:port), closed when the
// test ends.
func StartProxy(tb testing.TB, target string) *faultproxy.Proxy {
	tb.Helper()
	p, err := faultproxy.Start(target)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.Close() })
	return p
}
