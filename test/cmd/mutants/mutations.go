package main

import "time"

// mutations is the mutation set: each takes a feature away, or turns it
// wrong, in the library's code, and names the packages and tests that
// must catch it. The slowest suites (chaos, failover, the full interop
// suite) are left out: each mutant runs only the tests chosen for it.
var mutations = []mutation{
	{
		Name: "hub-message-wakes-nobody",
		What: "the pub/sub hub ignores a release message: its waiters sleep out their timers",
		Edits: []edit{{
			File: "pubsub/shard_read.go",
			Old:  "\t\tdefault:\n\t\t\te.released()\n",
			New:  "\t\tdefault:\n",
		}},
		Pkgs:    []string{"./pubsub/"},
		Run:     "TestMessageWakesOneSleeperInArrivalOrder|TestWokenWaiterThatRetriesInVainKeepsItsTurn|TestPokeWakesOneWaiterOutOfTurn",
		Timeout: 2 * time.Minute,
	},
	{
		Name: "hub-message-wakes-all",
		What: "a release message wakes every sleeper of the channel, not the one whose turn it is",
		Edits: []edit{{
			File: "pubsub/entry.go",
			Old:  "e.q.wake(1, e.share.released())",
			New:  "e.q.wake(e.q.waiters, e.share.released())",
		}},
		Pkgs:    []string{"./pubsub/"},
		Run:     "TestMessageWakesOneSleeperInArrivalOrder|TestWokenWaiterThatRetriesInVainKeepsItsTurn",
		Timeout: 2 * time.Minute,
	},
	{
		Name: "hub-read-unlock-wakes-one",
		What: "a read unlock's message wakes one waiter, as a plain release does, not every reader",
		Edits: []edit{{
			File: "pubsub/shard_read.go",
			Old:  "case m.Payload == keys.ReadUnlockMessage:\n\t\t\te.q.releaseAll()",
			New:  "case m.Payload == keys.ReadUnlockMessage:\n\t\t\te.released()",
		}},
		Pkgs:    []string{"./pubsub/"},
		Run:     "TestReadUnlockMessageWakesAll",
		Timeout: 2 * time.Minute,
	},
	{
		Name: "hub-retry-loses-turn",
		What: "a waiter whose retry after a wake-up failed sleeps again at the back, losing its turn",
		Edits: []edit{{
			File: "pubsub/subscription.go",
			Old:  "w, el := e.q.sleep(d, front)",
			New:  "w, el := e.q.sleep(d, false)",
		}},
		Pkgs:    []string{"./pubsub/"},
		Run:     "TestWokenWaiterThatRetriesInVainKeepsItsTurn",
		Timeout: 2 * time.Minute,
	},
}
