package rlock

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// ClientLabel is what a Client named with WithClientName tells other
// processes about itself: Inspect gives it beside each holder and waiter
// of that Client, the relock command and /debug/locks show it. It is kept
// in Redis at the key "relock_client:{<client id>}", as JSON with these
// fields, for as long as the Client is open.
type ClientLabel struct {
	Name    string    `json:"name"`    // WithClientName's
	Host    string    `json:"host"`    // os.Hostname
	PID     int       `json:"pid"`     // os.Getpid
	Started time.Time `json:"started"` // when New made the Client
	// ConnName is the name the Client's go-redis connections give
	// themselves with CLIENT SETNAME (redis.Options.ClientName), so that
	// CLIENT LIST can be matched to the label; "" when they have none.
	ConnName string `json:"conn_name,omitempty"`
}

// String is "NAME@HOST", or "" for no label.
func (l ClientLabel) String() string {
	if l.Name == "" {
		return ""
	}
	return l.Name + "@" + l.Host
}

// maxClientName is the longest name WithClientName accepts.
const maxClientName = 64

// WithClientName labels the Client with name: service, role or instance,
// 1 to 64 printable ASCII characters with no space (as CLIENT SETNAME
// accepts). The label (ClientLabel: name, host, process id, start time)
// is written to Redis by the Client's watchdog loop as it starts, kept
// with a TTL of the watchdog timeout and refreshed every third of it, and
// deleted by Close; a label that cannot be written is left to the next
// refresh. Other processes see it in Inspect, the relock command and
// /debug/locks. The connections are rdb's, which rlock does not rename:
// to see the name in CLIENT LIST, give rdb the same one
// (redis.Options.ClientName: go-redis sends CLIENT SETNAME on each new
// connection); the label records it (ConnName). Without it a Client writes
// no label and is known by its id alone. The label key needs
// "~relock_client:*" in an ACL user's key patterns (docs/deployment.md).
func WithClientName(name string) Option {
	return func(o *options) error {
		if err := checkClientName(name); err != nil {
			return err
		}
		o.clientName = name
		return nil
	}
}

// checkClientName returns why name cannot be a Client's name, or nil.
func checkClientName(name string) error {
	if name == "" || len(name) > maxClientName {
		return fmt.Errorf("client name %q: want 1 to %d characters, not %d", name, maxClientName, len(name))
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("client name %q: character %q at %d: want printable ASCII with no space", name, rune(c), i)
		}
	}
	return nil
}

// labelKey is the key of the label of the Client whose id is client: in
// a hash slot of its own, by the braces.
func labelKey(client string) string { return "relock_client:{" + client + "}" }

// labeller keeps a Client's label in Redis.
type labeller struct {
	rdb  redis.UniversalClient
	key  string
	json []byte
	ttl  time.Duration
}

// newLabeller returns the labeller of the Client whose id is client, or
// nil when it has no name.
func newLabeller(rdb redis.UniversalClient, client, name string, ttl time.Duration) *labeller {
	if name == "" {
		return nil
	}
	host, _ := os.Hostname()
	data, _ := json.Marshal(ClientLabel{Name: name, Host: host, PID: os.Getpid(), Started: time.Now().UTC(), ConnName: connName(rdb)}) // cannot fail
	return &labeller{rdb: rdb, key: labelKey(client), json: data, ttl: ttl}
}

// connName is the name rdb's connections give themselves (CLIENT
// SETNAME), when its options can be read.
func connName(rdb redis.UniversalClient) string {
	switch c := rdb.(type) {
	case *redis.Client:
		return c.Options().ClientName
	case *redis.ClusterClient:
		return c.Options().ClientName
	}
	return ""
}

// refresh writes the label with its TTL; an error is left to the next
// refresh.
func (l *labeller) refresh(ctx context.Context) {
	_ = l.rdb.Set(ctx, l.key, l.json, l.ttl).Err()
}

// remove deletes the label, for at most timeout.
func (l *labeller) remove(timeout time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_ = l.rdb.Del(ctx, l.key).Err()
}

// clientOf is the client id part of an owner id, "<client id>:<sequence>"
// ("<UUID>:<thread id>" for Redisson); "" when it has none.
func clientOf(owner string) string {
	if i := strings.LastIndexByte(owner, ':'); i > 0 {
		return owner[:i]
	}
	return ""
}
