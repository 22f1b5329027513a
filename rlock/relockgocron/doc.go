// Package relockgocron distributes go-co-op/gocron v2 schedulers with
// rlock: an Elector (one instance runs every job) and a Locker (every
// instance schedules, one runs each tick of each job).
//
//	client, _ := rlock.New(rdb)
//	locker, _ := relockgocron.NewLocker(client)
//	s, _ := gocron.NewScheduler(gocron.WithDistributedLocker(locker))
//
// or, for one instance running everything:
//
//	elector, _ := relockgocron.NewElector(client, "jobs:leader")
//	defer elector.Close()
//	s, _ := gocron.NewScheduler(gocron.WithDistributedElector(elector))
//
// The Elector leads while it holds a term of an rlock.Election whose
// lease it has confirmed in Redis: a leader paused past its lease stops
// answering IsLeader with nil before another can be elected, and
// Elector.Term gives the term's fencing token to jobs that fence their
// writes. The Locker holds a watchdog-renewed lock per job for as long as
// a run lasts, and claims each tick for the schedulers' splay so that a
// scheduler firing a tick late does not run it again. docs/scheduling.md
// says which to take, the rules and what each leaves in Redis.
//
// This module is separate from the library's, so that the library's users
// who do not use gocron do not download it.
package relockgocron
