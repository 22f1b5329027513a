package main

import (
	"context"
	"errors"
	"strconv"

	"github.com/relock-go/relock/rlock"
)

// runList prints one line per lock whose name matches the pattern
// args[0] (default "*"): its kind, number of holders, TTL and queue
// length, each lock inspected in turn. A lock gone, or replaced by a key
// that is not a lock, between the listing and its inspection is left out.
func runList(ctx context.Context, s *session, args []string) error {
	pattern := "*"
	if len(args) > 0 {
		pattern = args[0]
	}
	rctx, cancel := s.request(ctx)
	names, err := s.locks.Locks(rctx, pattern)
	cancel()
	if err != nil {
		return err
	}
	views := make([]lockView, 0, len(names))
	for _, name := range names {
		info, now, err := s.inspect(ctx, name)
		switch {
		case errors.Is(err, rlock.ErrWrongType):
			continue
		case err != nil:
			return err
		case info.Kind == "":
			continue
		}
		views = append(views, newLockView(info, now))
	}
	if s.o.json {
		return writeJSON(s.e.stdout, views)
	}
	rows := [][]string{{"NAME", "KIND", "HOLDERS", "TTL", "QUEUE"}}
	for _, v := range views {
		rows = append(rows, []string{v.Name, v.Kind, strconv.Itoa(len(v.Holders)), ttlText(v.TTLMillis, ""), strconv.Itoa(len(v.Queue))})
	}
	writeTable(s.e.stdout, "", rows)
	return nil
}
