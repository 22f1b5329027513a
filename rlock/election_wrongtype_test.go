package rlock

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/relock-go/relock/internal/keys"
)

// An election on a name that holds a value of another kind, or whose
// record or log does, fails at once with ErrWrongType and changes
// nothing; its observer's channel closes.
func TestElectionOnAForeignKeyIsErrWrongType(t *testing.T) {
	rdb := newRedis(t)
	c := newClient(t, rdb)
	ctx := ctxT(t)
	for typ, set := range foreignValues {
		for _, at := range []string{"name", "record", "log"} {
			name := "foreign-election:" + typ + ":" + at
			key := map[string]string{"name": name, "record": keys.Election(name), "log": keys.ElectionLog(name)}[at]
			if err := set(ctx, rdb, key); err != nil {
				t.Fatal(err)
			}
			before := contents(ctx, t, rdb, key)
			e := c.NewElection(name)
			octx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_, campaignErr := e.Campaign(octx, "v")
			_, leaderErr := e.Leader(octx)
			ch := e.Observe(octx)
			_, delivered := <-ch
			waited := octx.Err() != nil
			cancel()
			want := heldText("Election", typ)
			if at != "name" {
				want = ErrWrongType.Error() + ": " + key + " is a " + typ + ", not a leader election's " + at
				if typ == map[string]string{"record": "hash", "log": "stream"}[at] {
					want = ErrWrongType.Error() + ": " + key + " is a " + typ + " that is not a leader election's " + at
				}
			}
			for op, err := range map[string]error{"Campaign": campaignErr, "Leader": leaderErr} {
				if !errors.Is(err, ErrWrongType) || !strings.HasSuffix(err.Error(), want) {
					t.Errorf("%s with a %s at the %s = %v, want ErrWrongType ending %q", op, typ, at, err, want)
				}
			}
			if delivered || waited {
				t.Errorf("Observe with a %s at the %s: delivered %v, waited %v; want its channel closed at once", typ, at, delivered, waited)
			}
			if after := contents(ctx, t, rdb, key); after != before {
				t.Errorf("a %s at the %s changed: %s, was %s", typ, at, after, before)
			}
			if n, _ := rdb.Exists(ctx, keys.Token(name)).Result(); n != 0 {
				t.Errorf("a %s at the %s: a token was taken", typ, at)
			}
		}
	}
}
