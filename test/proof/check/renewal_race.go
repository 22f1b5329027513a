package check

import "github.com/relock-go/relock/test/proof/history"

// CauseRenewalAfterPause explains the loss of a Redisson hold taken just
// after its process resumed from a pause, in which it held the same lock.
const CauseRenewalAfterPause = "a Redisson renewal answered after its pause"

// renewedAcrossPause reports whether s, a Redisson hold, may have lost its
// watchdog to a renewal of the hold before it. Redisson 3.52 renews every
// lock of a client in one batch (org.redisson.renewal.LockTask) and, for a
// lock the batch found not held, cancels the renewal of that lock name and
// thread id, whatever hold has taken the name since: a batch sent as a
// paused JVM resumed, while the thread still counted the hold it lost in
// the pause, and answered after the same thread took the lock again,
// leaves the new hold without renewals. So a pause of s's own process
// explains the loss of s when the process released (or tried to release)
// the lock after the pause began, and s is its first acquisition of the
// lock after the pause, invoked within a Redisson command's resends
// (Config.RedissonResend, and the wait for a replica) of its end.
func (c *nameCheck) renewedAcrossPause(s *section) bool {
	proc := c.run.Procs[s.proc]
	if proc.Side != "java" || !lockKind(c.spec.Workload) {
		return false
	}
	window := int64(c.cfg.RedissonResend) + int64(c.spec.Ack())
	return c.fi.any(s.call-window, s.call, func(f *history.Fault) bool {
		if f.Kind != "pause" || f.Target != proc.Name || f.End > s.call {
			return false
		}
		released := false
		for _, o := range c.ops {
			switch {
			case o.Proc != s.proc || o.Call >= s.call:
			case o.Kind == history.OpAcquire && o.Call >= f.End:
				return false // s is not the first acquisition after the pause
			case o.Kind == history.OpRelease && o.Call >= f.Start:
				released = true
			}
		}
		return released
	}) != ""
}
