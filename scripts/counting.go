package scripts

import (
	"context"
	_ "embed"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relock-go/relock/internal/keys"
)

//go:embed counting.lua
var countingSrc string

// newCounting returns the script src preceded by counting.lua's helpers
// (the check of the keys' kinds, the request records).
func newCounting(src string) *redis.Script { return redis.NewScript(countingSrc + src) }

// count is what the counting objects share: the key NAME holding the
// count, a bare string of an integer as Redisson keeps it, and the channel
// where its news is announced.
type count struct{ name, channel string }

// Channel is where the object's news is announced.
func (c *count) Channel() string { return c.channel }

// done runs script on the count and its channel with args, and reports
// whether it answered 1: it did what it was asked (set a count that was
// missing, deleted one that was there).
func (c *count) done(ctx context.Context, rdb redis.Scripter, script *redis.Script, args ...any) (bool, error) {
	v, err := script.Run(ctx, rdb, []string{c.name, c.channel}, args...).Int64()
	return v == 1, err
}

// Request identifies one request that changes a semaphore's or a latch's
// count, so that a run of it resent after a lost reply changes nothing
// (counting.lua). A Client's requests to one object are recorded in one
// hash in the object's hash slot, named after the Client, holding the
// latest request made in each of its fields. So the records of a Client take
// one key per object and as many fields as it ever had requests to the
// object in flight at once, however many requests it makes.
type Request struct {
	// Client is the id of the Client making the request, which names its
	// records.
	Client string
	// Field is the field of the records it is kept in, which no other
	// request of the Client in flight uses.
	Field int
	// Seq is the request's number: greater than that of every request the
	// Client made before in the same field. A resend has the same Seq.
	Seq uint64
	// TTL is how long the records are kept after their latest request,
	// at least as long as the request may be resent.
	TTL time.Duration
}

// records is the key of the request records of r's Client for the object
// called name.
func (r Request) records(name string) string { return keys.Records(name, r.Client) }

// args are the request's script arguments: its field, seq and the
// records' TTL in milliseconds.
func (r Request) args() []any { return []any{r.Field, r.Seq, Millis(r.TTL)} }
