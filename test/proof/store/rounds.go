package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The latch workload's rounds. The processes sharing a latch object draw
// tickets (Ticket), and ticket t gives its process a part in round
// (t-1)/LatchRound, at position (t-1)%LatchRound: the first sets the
// round's count-down latch (LatchName) to LatchCount and opens the round
// (Open), then awaits it; the next LatchCount count it down once each; the
// rest await it. Every part but the first waits for the round to be open
// before it begins, so no count-down comes before the count.
const (
	// LatchCount is each round's count.
	LatchCount = 2
	// LatchRound is the parts of a round: its setter, its count-downs,
	// and three more waiters.
	LatchRound = 1 + LatchCount + 3
)

// LatchName is the name, in the lock service, of round's count-down latch
// of object.
func LatchName(object string, round int64) string { return fmt.Sprintf("%s:%d", object, round) }

func ticketKey(object string) string { return "tickets:" + object }
func roundKey(object string, round int64) string {
	return fmt.Sprintf("round:%s:%d", object, round)
}

// Ticket draws the next of object's tickets: 1, 2, ...
func (s *Store) Ticket(ctx context.Context, object string) (int64, error) {
	return s.rdb.Incr(ctx, ticketKey(object)).Result()
}

// Open records that round of object has begun: its latch has its count.
func (s *Store) Open(ctx context.Context, object string, round int64) error {
	return s.rdb.Set(ctx, roundKey(object, round), 1, 0).Err()
}

// IsOpen reports whether round of object has begun.
func (s *Store) IsOpen(ctx context.Context, object string, round int64) (bool, error) {
	err := s.rdb.Get(ctx, roundKey(object, round)).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}
