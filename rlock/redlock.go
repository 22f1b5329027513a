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
// # Acquiring
//
// A round makes one attempt at every member at once. It succeeds when a
// majority is held and the majority's leases, as this process measures
// them from when each attempt was sent, still run beyond now by a drift
// allowance (1% of the lease plus 2ms); members taken beyond the majority
// are kept. Otherwise the round releases everything it took, including
// members whose attempt failed with a Redis error (the reply may have been
// lost after the lock was taken), and unless the wait is over, waits through
// the pub/sub of one member another owner holds, chosen at random, holding
// nothing meanwhile; when that member is taken the next round starts with
// it. Waiting while holding nothing cannot deadlock, and the random choice
// makes contenders that split the votes diverge. When fewer than a
// majority of members can be reached, TryLock and Lock return at once
// with the members' errors joined. Unlock releases every member the
// acquisition took, and those whose attempt failed with a Redis error.
//
// Give the members go-redis clients with short dial, read and write
// timeouts and few retries (MaxRetries, DialerRetries): an attempt is not
// cut short by ctx, so a master that does not answer holds up every round
// until its timeouts.
//
// # Caveats
//
// A RedLock is safe only under timing assumptions. It reckons leases with
// this process's clock while each master expires keys with its own: a
// clock that jumps or drifts more than the allowance can let a lease end
// on a master before this process thinks it does. A pause of the holder
// (garbage collection, swapping, a stopped VM) or a network delay longer
// than the remaining lease lets another owner acquire a majority while the
// first still believes it holds the set; Lost reports it only afterwards.
// This is the substance of Martin Kleppmann's critique ("How to do
// distributed locking", 2016): a lease-based lock cannot by itself stop a
// paused holder, and only the guarded resource can, by rejecting writes
// that carry a stale fencing token. A RedLock produces no such token: the
// tokens of FencedMutex members come from each master's own counter and
// do not form one sequence. Where two holders at once would corrupt data,
// take fencing tokens from one ordered source (a FencedMutex on a single
// master, or a consensus store) and check them at the resource.
//
// The watchdog of each member's Client renews that member on its own
// master; a member that cannot be renewed is lost, and Lost closes when
// fewer than a majority of the members taken remain. A master that
// restarts without persistence comes back empty, having forgotten the
// locks it held, and can then grant one of them to another owner, which
// with another master makes a second majority. Run masters with
// appendonly and appendfsync always, or keep a restarted master out for
// longer than the lease, so that renewals fail on it meanwhile and holders
// see Lost before it rejoins.
func NewRedLock(members ...Member) *MultiLock {
	l := &MultiLock{quorum: true, need: len(members)/2 + 1, label: label(members)}
	l.members, l.err = canonical(members, true)
	return l
}

// acquireQuorum takes a majority of the members, in rounds, as NewRedLock
// describes.
func (l *MultiLock) acquireQuorum(ctx context.Context, deadline time.Time, lease time.Duration) (acquisition, bool, error) {
	ms := l.members
	first := -1 // member taken, with waiting, before a round
	for {
		res := make([]attempt, len(ms))
		others := ms
		if first >= 0 {
			if passed(deadline) {
				return acquisition{}, false, nil
			}
			r := &res[first]
			r.ok, r.err = ms[first].acquire(ctx, deadline, lease)
			switch {
			case r.err != nil && (ctx.Err() != nil || errors.Is(r.err, ErrClosed)):
				return acquisition{}, false, r.err
			case !r.ok && r.err == nil:
				return acquisition{}, false, nil // the wait elapsed
			}
			others = slices.Delete(slices.Clone(ms), first, first+1)
		}
		for i, r := range attemptEach(ctx, others, lease) {
			if first >= 0 && i >= first {
				i++
			}
			res[i] = r
		}

		var a acquisition
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
			return acquisition{}, false, err
		}
		if reachable := len(ms) - len(errs); reachable < l.need {
			return acquisition{}, false, fmt.Errorf("%d of %d members reachable, %d needed: %w",
				reachable, len(ms), l.need, errors.Join(errs...))
		}
		if passed(deadline) {
			return acquisition{}, false, nil
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
