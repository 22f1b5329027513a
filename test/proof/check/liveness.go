package check

import (
	"time"

	"github.com/relock-go/relock/test/proof/history"
)

// liveness checks that every acquire returns (ok, fail or info: served or
// told) within its wait, its wait for a replica and Config.Slack, or, when
// faults that hit the waiter (its process, everyone, or its lock service)
// overlap that span, within one lease and Config.Slack after the last of
// them healed. A fault on another process (a paused holder, a killed
// waiter) cannot delay a wait that ends on its own: it grows no bound.
// An acquire without a completion is judged only if its process was not
// killed before that bound and the run lasted past it. A Redisson acquire
// late by at most Config.RedissonResend is measured (CauseRedissonResend),
// and one without a completion is judged only past that too.
func (c *nameCheck) liveness() {
	wait, bounded := c.spec.Wait()
	if !bounded {
		return
	}
	lease, slack := int64(c.spec.Lease()), int64(c.cfg.Slack)
	for _, o := range c.ops {
		if o.Kind != history.OpAcquire {
			continue
		}
		proc := c.procName(o.Proc)
		bound := o.Call + int64(wait+c.spec.Ack()) + slack
		for grown := true; grown; {
			grown = false
			c.fi.each(o.Call, bound, func(f *history.Fault) bool {
				if e := f.End + lease + slack; e > bound && c.fi.hits(f, proc) {
					bound, grown = e, true
				}
				return true
			})
		}
		if o.Done() {
			c.res.Waiters++
			c.res.LongestWait = max(c.res.LongestWait, time.Duration(o.Return-o.Call))
			if o.Return > bound {
				var cause string
				if c.run.Procs[o.Proc].Side == "java" && o.Return <= bound+c.redissonResend() {
					cause = CauseRedissonResend
				}
				c.findingOf(c.side(o.Proc), cause, CheckLiveness, o.Return, "%s's acquire, invoked at %s, returned after %s, past its bound of %s",
					c.procName(o.Proc), c.clock(o.Call), dur(o.Return-o.Call), dur(bound-o.Call))
			}
			continue
		}
		// A Redisson acquire may return late by Redisson's resends (a
		// finding measured, above): cut off by a kill or the run's end
		// before that, it is not judged either.
		if c.run.Procs[o.Proc].Side == "java" {
			bound += c.redissonResend()
		}
		if k, killed := c.fi.killedAt(proc, o.Call); (killed && k <= bound) || bound >= c.run.End {
			c.res.WaitersUnjudged++
			continue
		}
		c.res.Waiters++
		c.findingOf(c.side(o.Proc), "", CheckLiveness, bound, "%s's acquire, invoked at %s, was never served nor told (bound %s)",
			c.procName(o.Proc), c.clock(o.Call), dur(bound-o.Call))
	}
}

// CauseRedissonResend explains a Redisson acquisition that returned after
// its bound by no more than Config.RedissonResend: Redisson resends a
// command that got no reply within its response timeout, so its tryLock
// can return that much after its wait.
const CauseRedissonResend = "Redisson's resends"
