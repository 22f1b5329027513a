package main

import "time"

// proofMutations is the proof's mutation set (-proof, make proof-mutants):
// each breaks a promise of docs/guarantees.md in the library's code, and a
// short proof under the faults that show it must fail with violations.
// An edit's text must be found exactly once, as in mutations; Checks are
// cmd/check's names of the checks that judge the promise broken.
var proofMutations = []proofMutation{
	{
		Name:     "told-half-a-lease-late",
		What:     "a holder is told of its loss (Lost, Context) half a lease after its lease ends, not a margin before",
		Edits:    []edit{{File: "rlock/hold.go", Old: "func lossMargin(lease time.Duration) time.Duration { return lease/100 + 2*time.Millisecond }", New: "func lossMargin(lease time.Duration) time.Duration { return -lease / 2 }"}},
		Faults:   []string{"partition"},
		Duration: time.Minute,
		Checks:   []string{"told", "exclusion"},
	},
	{
		Name: "failed-renewal-ignored",
		What: "a renewal that got no answer counts as one Redis applied: the holder's lease runs on in its own eyes",
		Edits: []edit{{File: "rlock/watchdog.go", Old: `			failed = append(failed, b.holds...)
			continue`, New: `			for _, h := range b.holds {
				h.renewed(sent)
			}
			continue`}},
		// Seed 22 partitions a Go process three times in its first
		// half-minute with every connection refused (nemesis's Refused),
		// for 2.7 to 4.6 s: its renewals fail at once while its long hold
		// runs on. (A stalled renewal fails only at its read timeout,
		// after the lease's own timer told the holder.)
		Faults:    []string{"partition"},
		Seed:      22,
		Workloads: []string{"plain", "fenced"},
		Duration:  time.Minute,
		Checks:    []string{"told", "exclusion"},
	},
	{
		Name: "fenced-token-repeated",
		What: "a fenced lock's first acquisition takes the counter's token as it is, not the next one",
		Edits: []edit{{File: "scripts/acquire_fenced.lua", Old: `if added and holds == 1 then
  return {1, redis.call('incr', KEYS[2])}`, New: `if added and holds == 1 then
  return {1, tonumber(redis.call('get', KEYS[2]) or '1')}`}},
		Faults:    []string{"reset"},
		Workloads: []string{"fenced"},
		Duration:  30 * time.Second,
		Checks:    []string{"grant-tokens", "store-tokens", "register", "lost-updates"},
	},
	{
		Name:  "fair-grants-the-newest",
		What:  "a fair lock's release grants the last waiter of the queue, not the first",
		Edits: []edit{{File: "queue/fair_grant.lua", Old: "local head = redis.call('lpop', queue)", New: "local head = redis.call('rpop', queue)"}},
		// Fair order is judged where no fault touched the waiters: the
		// restarts hit the single server alone, the Sentinel
		// deployments' fair locks are judged throughout. Short sections
		// only: long holds let few grants through (a dozen per lock in
		// 30 s, their waiters timing out), short ones thousands.
		Faults:    []string{"restart-always"},
		Workloads: []string{"fair"},
		Duration:  30 * time.Second,
		Flags:     []string{"-short-only"},
		Checks:    []string{"fair-order"},
	},
	{
		Name:      "semaphore-one-permit-too-many",
		What:      "a semaphore's acquisition takes one permit fewer than it is granted: more than N get in",
		Edits:     []edit{{File: "scripts/sem_acquire.lua", Old: "redis.call('decrby', KEYS[1], ARGV[1])", New: "redis.call('decrby', KEYS[1], ARGV[1] - 1)"}},
		Faults:    []string{"restart-always"},
		Workloads: []string{"semaphore"},
		Duration:  30 * time.Second,
		Checks:    []string{"permits"},
	},
	{
		Name:      "two-leaders-one-term",
		What:      "an election's new term takes the last term's token: two leaders hold one term",
		Edits:     []edit{{File: "scripts/election_elect.lua", Old: "local token = redis.call('incr', counter)", New: "local token = tonumber(redis.call('get', counter) or '1')"}},
		Faults:    []string{"reset"},
		Workloads: []string{"election"},
		Duration:  30 * time.Second,
		Checks:    []string{"grant-tokens", "exclusion"},
	},
	{
		Name:      "rate-limiter-over-its-limit",
		What:      "a rate limiter grants an acquisition when one permit fewer than asked is left",
		Edits:     []edit{{File: "scripts/rate_acquire.lua", Old: "if st.value >= n + reserve then", New: "if st.value + 1 >= n + reserve then"}},
		Faults:    []string{"reset"},
		Workloads: []string{"rate"},
		Duration:  30 * time.Second,
		Checks:    []string{"rate"},
	},
	{
		Name: "unlock-publishes-nothing",
		What: "a reentrant lock's release publishes no unlock message: waiters sleep out the lock's TTL",
		Edits: []edit{
			{File: "scripts/release.lua", Old: "elseif redis.call(ARGV[4], KEYS[2], ARGV[1]) > 0 then", New: "elseif false then"},
			{File: "scripts/release_bare.lua", Old: "if redis.call(PUBLISH, KEYS[2], '0') == 0 then", New: "if true then"},
		},
		// A failover touches the noack deployment alone: the single
		// server's and the ack deployment's waiters are judged throughout
		// (a fault on a waiter, or a pending acquisition of a process it
		// hit, explains a free lock). Three Go processes and no Java one,
		// whose releases would wake the sleepers; holds of up to 200 ms
		// leave waiters at most releases, and pauses of up to 2 s between
		// iterations leave the lock free while they sleep.
		Faults:    []string{"failover"},
		Workloads: []string{"plain", "fenced"},
		Duration:  30 * time.Second,
		Flags:     []string{"-go", "3", "-java", "0", "-hold", "200ms", "-think", "2s"},
		Checks:    []string{"woken"},
	},
}
