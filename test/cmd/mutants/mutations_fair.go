package main

import "time"

// fairMutations are the mutations of the fair lock's queue and grants.
var fairMutations = []mutation{
	{
		Name:    "fair-grants-the-tail",
		What:    "a fair lock's release grants the last waiter of the queue, not the first",
		Edits:   []edit{{File: "queue/fair_grant.lua", Old: "local head = redis.call('lpop', queue)", New: "local head = redis.call('rpop', queue)"}},
		Pkgs:    []string{"./queue/", "./rlock/"},
		Run:     "^(TestReleaseGrantsTheHead|TestFairMutexGrantsInArrivalOrder)$",
		Timeout: 3 * time.Minute,
	},
	{
		Name:    "fair-keeps-a-dead-head",
		What:    "a fair lock's release never evicts a relock head nobody hears: the queue waits for its deadline",
		Edits:   []edit{{File: "queue/fair_grant.lua", Old: "    if heard and not lease then", New: "    if not heard and mark then\n      return nil\n    end\n    if heard and not lease then"}},
		Pkgs:    []string{"./queue/", "./rlock/"},
		Run:     "^(TestDeadWaiterIsPassedOver|TestFairMutexDeadWaiterEvictedOnItsTurn)$",
		Timeout: 3 * time.Minute,
	},
	{
		Name:    "fair-tells-a-stale-redisson-head",
		What:    "a fair lock's last release tells a Redisson head its turn with its deadline passed, so that its own script purges it",
		Edits:   []edit{{File: "queue/fair_grant.lua", Old: "      keep_fresh(timeouts, waiters, tonumber(redis.call('zscore', timeouts, head)), now, wait)\n", New: ""}},
		Pkgs:    []string{"./queue/"},
		Run:     "^TestWaitersOutliveTheirDeadlinesWhileTheLockIsHeld$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-purges-live-waiters",
		What:    "a fair lock's scripts purge a head whose deadline passed while the lock is held, as Redisson's do: a live Redisson waiter is lost",
		Edits:   []edit{{File: "queue/fair_common.lua", Old: "local function evict_stale(queue, timeouts, now, waiters, held)\n  local evicted = false", New: "local function evict_stale(queue, timeouts, now, waiters, held)\n  held = nil\n  local evicted = false"}},
		Pkgs:    []string{"./queue/"},
		Run:     "^TestWaitersOutliveTheirDeadlinesWhileTheLockIsHeld$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-grant-by-message-only",
		What:    "a fair release that grants its own Client's waiter does not tell it: the waiter waits for the message",
		Edits:   []edit{{File: "rlock/fair_turn.go", Old: "granteesOf.in(o.c).tell(reply.Granted, reply.Grant)", New: "_ = reply.Granted"}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestFairGrantToAWaiterOfTheSameClientIsToldInProcess$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-grant-told-to-the-owner",
		What:    "a fair release's reply tells the granted owner's current wait, whichever it is: read late, it tells a new wait that nothing granted",
		Edits:   []edit{{File: "rlock/fair_grantees.go", Old: "if ok && w.grant == grant {", New: "if ok {\n\t\tgrant = w.grant"}},
		Pkgs:    []string{"./rlock/"},
		Run:     "^TestGrantTellsTheWaitGrantedNotTheOwnersNext$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-grant-leaves-the-next-head-stale",
		What:    "a Go grant moves every deadline a wait timeout earlier and no more: a Java waiter chained with a shorter wait timeout is past its deadline, and the next Redisson script purges it",
		Edits:   []edit{{File: "queue/fair_common.lua", Old: "delta = math.max(delta, now_ms() + wait - deadline)", New: "delta = delta"}},
		Pkgs:    []string{"./test/interop/"},
		Run:     "^TestFairShortWaitJavaWaiterKeepsItsPlace$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-leaving-leaves-the-next-head-stale",
		What:    "a Go waiter leaving the head of a held fair lock moves the deadlines behind a wait timeout earlier and no more: a Java waiter chained with a shorter wait timeout is past its deadline",
		Edits:   []edit{{File: "queue/fair_leave.lua", Old: "      keep_fresh(KEYS[3], KEYS[5], deadline, now_ms(), wait)\n", New: ""}},
		Pkgs:    []string{"./test/interop/"},
		Run:     "^TestFairShortWaitJavaWaiterOutlivesAGoLeaving$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-renewal-leaves-the-head-stale",
		What:    "the watchdog renews a fair lock as any hash lock: through a Go hold longer than the wait timeout, a Redisson head's deadline passes and its own script purges it",
		Edits:   []edit{{File: "rlock/fair_mutex.go", Old: "renewal{k.renewer, k.held}", New: "renewal{scripts.HashRenewer, k.held}"}},
		Pkgs:    []string{"./test/interop/"},
		Run:     "^TestFairJavaWaitersKeepTheirOrderThroughALongGoHold$",
		Timeout: 2 * time.Minute,
	},
	{
		Name:    "fair-renewal-keeps-a-short-wait",
		What:    "a fair renewal keeps the head's deadline a wait timeout away even when that is shorter than the time to the next renewal",
		Edits:   []edit{{File: "queue/fair_renew.lua", Old: "local keep = math.max(tonumber(ARGV[2]), tonumber(ARGV[1]))", New: "local keep = tonumber(ARGV[2])"}},
		Pkgs:    []string{"./queue/"},
		Run:     "^TestRenewKeepsTheHeadALeaseAwayPastAShortWait$",
		Timeout: 2 * time.Minute,
	},
}
