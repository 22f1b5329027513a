package main

import "time"

// rateMutations are the mutations of the rate limiter's scripts and
// waiters.
var rateMutations = []mutation{
	{
		Name:    "rate-waiters-poll",
		What:    "a rate limiter's waiter retries every 10 ms, not when the script says its permits come back",
		Edits:   []edit{{File: "rlock/rate_turn.go", Old: "func (t *rateTurn) next(outcome) wait { return wait{until: t.due} }", New: "func (t *rateTurn) next(outcome) wait { return wait{sleep: 10 * time.Millisecond} }"}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestClockRateLimiterWaitSleepsUntilThePermitsComeBack$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-waiters-not-in-line",
		What:    "a rate limiter's waiters of one Client do not queue: each attempts and sleeps on its own",
		Edits:   []edit{{File: "rlock/rate_turn.go", Old: "if !t.slot.try() {", New: "if t.slot.try(); false {"}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestClockRateLimiterBurstAttemptsOneAtATime$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-release-keeps-members",
		What:    "a rate limiter's release raises the count and leaves the permits taken in the set, as Redisson's does",
		Edits:   []edit{{File: "scripts/rate_release.lua", Old: "redis.call('zrem', cfg.permits, member)", New: "redis.call('zscore', cfg.permits, member)"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateReleaseKeepsTheWindow$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-resend-takes-again",
		What:    "a resent rate limiter acquisition takes its permits again",
		Edits:   []edit{{File: "scripts/rate_acquire.lua", Old: "if redis.call('zadd', cfg.permits, 'NX', now, ARGV[3]) == 1 then", New: "if redis.call('zadd', cfg.permits, now, ARGV[3]) >= 0 then"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateResendTakesOnce$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-count-trusted",
		What:    "a rate limiter's scripts trust the count and add what came back, as Redisson's do: a Redisson release of permits of a member of many is granted again",
		Edits:   []edit{{File: "scripts/rate_common.lua", Old: "local value = cfg.rate - used", New: "local value = tonumber(v or cfg.rate) + back"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateCountIsThePermitsOfTheSet$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-ledger-always-trusted",
		What:    "a rate limiter's ledger is trusted even when a Redisson client wrote since: its acquisitions are not counted",
		Edits:   []edit{{File: "scripts/rate_common.lua", Old: "if used and string.sub(l, #used + 2) == entry(cfg, v) then", New: "if used then"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateCountIsThePermitsOfTheSet$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-wait-counts-a-permit-a-member",
		What:    "a refused rate limiter acquisition counts a permit at least for each member: a member of 0 (tryAcquire(0)) makes it wake early",
		Edits:   []edit{{File: "scripts/rate_acquire.lua", Old: "      short = short - p\n", New: "      short = short - math.max(p, 1)\n"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateCountIsThePermitsOfTheSet$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-permit-back-at-the-interval",
		What:    "a rate limiter's permit stamped t comes back at t + the interval, up to 1 ms less than an interval after it was taken",
		Edits:   []edit{{File: "scripts/rate_common.lua", Old: "local old = '(' .. string.format('%d', now - cfg.interval)", New: "local old = string.format('%d', now - cfg.interval)"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateAcquireTakesTheRateThenTellsWhen$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-stamp-clamped",
		What:    "a rate limiter's script keeps the caller's stamp within 10 ms of Redis's TIME: hosts that agree, beside a Redis off their clock, split",
		Edits:   []edit{{File: "scripts/rate_acquire.lua", Old: "local now = tonumber(ARGV[2])", New: "local server = tonumber(redis.call('time')[1]) * 1000\nlocal now = math.min(math.max(tonumber(ARGV[2]), server - 10), server + 10)"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateStampIsTheCallersClock$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-tryset-resets",
		What:    "a rate limiter's trySetRate on a lost config deletes the permits taken",
		Edits:   []edit{{File: "scripts/rate_set.lua", Old: "if ARGV[5] ~= '1' then", New: "if true then"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRateTrySetKeepsThePermitsTaken$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "rate-client-keys-kept",
		What:    "a per-client rate limiter's keys of a client get no TTL: every client ever started leaves its pair",
		Edits:   []edit{{File: "scripts/rate_common.lua", Old: "    ttl = 2 * cfg.interval\n", New: "    ttl = -1\n"}},
		Pkgs:    []string{"./scripts/"},
		Run:     "^TestRatePerClientKeysExpire$",
		Timeout: 2 * time.Minute,
	},
}
