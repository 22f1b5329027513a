package pubsub

import (
	"errors"
	"testing"
)

// The wordings of Redis 6.2 to 7.x and Valkey 8 for a SUBSCRIBE refused by
// an ACL count as a refusal of the subscription; a refused PING, or any
// other error, does not (the connection is then replaced).
func TestRefusalsAreTheSubscriptionsOnly(t *testing.T) {
	for msg, want := range map[string]bool{
		"NOPERM this user has no permissions to access one of the channels used as arguments": true,
		"NOPERM No permissions to access a channel":                                           true,
		"NOPERM this user has no permissions to run the 'subscribe' command":                  true,
		"NOPERM User relock has no permissions to run the 'ssubscribe' command":               true,
		"NOPERM this user has no permissions to run the 'ping' command":                       false,
		"NOPERM User relock has no permissions to run the 'ping' command":                     false,
		"ERR unknown command 'ssubscribe'":                                                    false,
		"MOVED 3999 127.0.0.1:6381":                                                           false,
	} {
		if got := isRefusal(errors.New(msg)); got != want {
			t.Errorf("isRefusal(%q) = %v, want %v", msg, got, want)
		}
	}
	if isRefusal(nil) {
		t.Error("isRefusal(nil) = true")
	}
}
