package rlock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// labelEntries sets the Label of every holder and queue entry of info
// from its Client's label: one round trip, none when the lock has neither.
// A kind of lock with entries of its own labels them here too.
func (c *Client) labelEntries(ctx context.Context, info *LockInfo) error {
	var clients []string
	for _, h := range info.Holders {
		clients = append(clients, h.Client)
	}
	for _, e := range info.Queue {
		clients = append(clients, e.Client)
	}
	found, err := c.labels(ctx, clients)
	if err != nil || len(found) == 0 {
		return err
	}
	for i := range info.Holders {
		info.Holders[i].Label = found[info.Holders[i].Client]
	}
	for i := range info.Queue {
		info.Queue[i].Label = found[info.Queue[i].Client]
	}
	return nil
}

// labels reads the labels of the Clients whose ids are clients, in one
// pipeline (one key per slot), by id; a Client with no label is left out.
func (c *Client) labels(ctx context.Context, clients []string) (map[string]*ClientLabel, error) {
	if len(clients) == 0 {
		return nil, nil
	}
	pipe := c.rdb.Pipeline()
	gets := make(map[string]*redis.StringCmd, len(clients))
	for _, id := range clients {
		if _, ok := gets[id]; !ok && id != "" {
			gets[id] = pipe.Get(ctx, labelKey(id))
		}
	}
	_, _ = pipe.Exec(ctx) // each command's error is read below
	found := make(map[string]*ClientLabel)
	for id, get := range gets {
		data, err := get.Bytes()
		switch {
		case errors.Is(err, redis.Nil), err != nil && isWrongType(err):
			continue // no label; a key that is not one is none
		case err != nil:
			return nil, fmt.Errorf("reading client labels: %w", err)
		}
		var l ClientLabel
		if json.Unmarshal(data, &l) == nil && l.Name != "" {
			found[id] = &l
		}
	}
	return found, nil
}
