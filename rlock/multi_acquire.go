package rlock

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// acquireAll takes every member: first all at once, then in canonical
// order, waiting for one member at a time as the type's doc describes.
func (l *MultiLock) acquireAll(ctx context.Context, deadline time.Time, lease time.Duration) (setAcquisition, bool, error) {
	ms := l.members
	held := make([]bool, len(ms))
	// unsure are members whose attempt failed with an error but may
	// have taken the lock: released with the rest.
	var unsure []Member
	fail := func(err error) (setAcquisition, bool, error) {
		releaseEach(ctx, append(pick(ms, held), unsure...))
		return setAcquisition{}, false, err
	}
	first := -1 // first member in order not taken
	var errs []error
	for i, r := range tryEach(ctx, ms, lease) {
		held[i] = r.ok
		if r.err != nil {
			errs = append(errs, r.err)
			if mayHaveTaken(ctx, r.err) {
				unsure = append(unsure, ms[i])
			}
		}
		if !r.ok && first < 0 {
			first = i
		}
	}
	if len(errs) > 0 {
		return fail(errors.Join(errs...))
	}
	if first >= 0 {
		if passed(deadline) {
			return fail(nil)
		}
		// Keep only members that sort before the first one missing.
		var later []Member
		for i := first + 1; i < len(ms); i++ {
			if held[i] {
				later, held[i] = append(later, ms[i]), false
			}
		}
		releaseEach(ctx, later)
	}
	for {
		i := slices.Index(held, false)
		if i < 0 {
			if allValid(ms) {
				return setAcquisition{held: ms}, true, nil
			}
			// A fixed lease ran out while later members were awaited.
			releaseEach(ctx, ms)
			clear(held)
			if passed(deadline) {
				return setAcquisition{}, false, nil
			}
			continue
		}
		mayWait := true
		for j, h := range held {
			if h && ms[j].Name() >= ms[i].Name() {
				mayWait = false
			}
		}
		if passed(deadline) {
			return fail(nil)
		}
		d := deadline
		if !mayWait {
			d = deadlineAfter(0)
		}
		ok, err := ms[i].acquire(ctx, d, lease)
		if err != nil {
			if mayHaveTaken(ctx, err) {
				unsure = append(unsure, ms[i])
			}
			return fail(err)
		}
		if ok {
			held[i] = true
			continue
		}
		if mayWait {
			return fail(nil) // the wait elapsed
		}
		// A member held sorts no lower: let go of all, wait for this one.
		releaseEach(ctx, pick(ms, held))
		clear(held)
		if passed(deadline) {
			return setAcquisition{}, false, nil
		}
		if ok, err = ms[i].acquire(ctx, deadline, lease); !ok || err != nil {
			if mayHaveTaken(ctx, err) {
				unsure = append(unsure, ms[i])
			}
			return fail(err)
		}
		held[i] = true
	}
}

// mayHaveTaken reports whether an attempt that failed with err may have
// taken its lock all the same: a Redis error may hide a lost reply, while
// an ended ctx or a closed Client stops a member before its attempt.
func mayHaveTaken(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && !errors.Is(err, ErrClosed)
}

// allValid reports whether every member's lease is still running.
func allValid(ms []Member) bool {
	now := time.Now()
	for _, m := range ms {
		if end, _ := m.base().leaseEnd(); !end.After(now) {
			return false
		}
	}
	return true
}

// pick returns the members whose flag is set.
func pick(ms []Member, flags []bool) []Member {
	var out []Member
	for i, m := range ms {
		if flags[i] {
			out = append(out, m)
		}
	}
	return out
}

// attempt is the outcome of one member's attempt.
type memberTry struct {
	ok  bool
	err error
}

// tryEach makes a single attempt at each member, all at once.
func tryEach(ctx context.Context, ms []Member, lease time.Duration) []memberTry {
	out := make([]memberTry, len(ms))
	each(ms, func(i int, m Member) {
		out[i].ok, out[i].err = m.acquire(ctx, deadlineAfter(0), lease)
	})
	return out
}

// releaseEach releases one acquisition of each member, all at once, and
// returns their errors.
func releaseEach(ctx context.Context, ms []Member) []error {
	errs := make([]error, len(ms))
	each(ms, func(i int, m Member) { errs[i] = m.Unlock(ctx) })
	return errs
}

// each runs f for every member concurrently and returns when all are done.
func each(ms []Member, f func(int, Member)) {
	if len(ms) == 1 {
		f(0, ms[0])
		return
	}
	var wg sync.WaitGroup
	wg.Add(len(ms))
	for i, m := range ms {
		go func() {
			defer wg.Done()
			f(i, m)
		}()
	}
	wg.Wait()
}
