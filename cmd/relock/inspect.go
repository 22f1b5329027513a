package main

import "context"

// runInspect prints the lock args[0]: its kind, holders, TTL, fair queue,
// subscribers and fencing token. A lock that is not there is reported,
// not an error.
func runInspect(ctx context.Context, s *session, args []string) error {
	v, err := s.view(ctx, args[0])
	if err != nil {
		return err
	}
	if s.o.json {
		return writeJSON(s.e.stdout, v)
	}
	writeLock(s.e.stdout, v)
	return nil
}
