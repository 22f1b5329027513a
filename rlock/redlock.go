package rlock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// NewRedLock returns a lock held when a majority of members (len/2+1) is
// held at once: the Redlock algorithm. Each member must be on an
// independent Redis master, through its own Client and go-redis client;
// their names may differ. The result is a MultiLock with the same methods;
// an unusable set yields one whose every operation returns an error
// wrapping ErrInvalidSet or ErrInvalidName.
//
// A round attempts every member at once; it succeeds when a majority is
// held and their leases, measured from when each attempt was sent, still
// run beyond now by a drift allowance (1% of the lease plus 2ms). Else it
// releases all it took (members whose attempt failed with a Redis error
// too) and, unless the wait is over, waits holding nothing for one busy
// member chosen at random, which the next round starts with. When fewer
// than a majority of members can be reached, TryLock and Lock return at
// once with the members' errors joined. Unlock releases every member the
// acquisition took, and those whose attempt failed with a Redis error.
// Lost closes when fewer than a majority of the members taken remain held.
//
// A RedLock is safe only under timing assumptions: clocks that drift less
// than the allowance, and pauses and delays shorter than the lease. It
// gives no fencing token (a FencedMutex member's tokens are its master's
// alone). Give the members go-redis clients with short timeouts and few
// retries (an attempt is not cut short by ctx), and run the masters with
// appendfsync always, or keep a restarted master out for longer than the
// lease. docs/lock-kinds.md ("Multi-lock and quorum") tells why.
func NewRedLock(members ...Member) *MultiLock {
	l := &MultiLock{quorum: true, need: len(members)/2 + 1, name: setName(members)}
	l.members, l.err = canonical(members, true)
	return l
}

// acquireQuorum takes a majority of the members, in rounds, as NewRedLock
// describes.
func (l *MultiLock) acquireQuorum(ctx context.Context, deadline time.Time, lease time.Duration) (setAcquisition, bool, error) {
	ms := l.members
	first := -1 // member taken, with waiting, before a round
	for {
		res := make([]memberTry, len(ms))
		others := ms
		if first >= 0 {
			if passed(deadline) {
				return setAcquisition{}, false, nil
			}
			r := &res[first]
			r.ok, r.err = ms[first].acquire(ctx, deadline, lease)
			switch {
			case r.err != nil && (ctx.Err() != nil || errors.Is(r.err, ErrClosed)):
				return setAcquisition{}, false, r.err
			case !r.ok && r.err == nil:
				return setAcquisition{}, false, nil // the wait elapsed
			}
			others = slices.Delete(slices.Clone(ms), first, first+1)
		}
		for i, r := range tryEach(ctx, others, lease) {
			if first >= 0 && i >= first {
				i++
			}
			res[i] = r
		}

		var a setAcquisition
		var busy []int
		var errs []error
		for i, r := range res {
			switch {
			case r.ok:
				a.held = append(a.held, ms[i])
			case r.err != nil:
				if mayHaveTaken(ctx, r.err) {
					a.unsure = append(a.unsure, ms[i])
				}
				errs = append(errs, r.err)
			default:
				busy = append(busy, i)
			}
		}
		if len(a.held) >= l.need && majorityValid(a.held, l.need) {
			return a, true, nil
		}
		releaseEach(ctx, append(a.held, a.unsure...))
		if err := ctx.Err(); err != nil {
			return setAcquisition{}, false, err
		}
		if reachable := len(ms) - len(errs); reachable < l.need {
			return setAcquisition{}, false, fmt.Errorf("%d of %d members reachable, %d needed: %w",
				reachable, len(ms), l.need, errors.Join(errs...))
		}
		if passed(deadline) {
			return setAcquisition{}, false, nil
		}
		first = -1
		if len(busy) > 0 {
			first = busy[rand.IntN(len(busy))]
		}
	}
}

// majorityValid reports whether need of held keep their leases beyond now
// by Redlock's drift allowance: 1% of the lease plus 2ms.
func majorityValid(held []Member, need int) bool {
	now := time.Now()
	valid := 0
	for _, m := range held {
		end, lease := m.base().leaseEnd()
		if end.Add(-lease/100 - 2*time.Millisecond).After(now) {
			valid++
		}
	}
	return valid >= need
}
