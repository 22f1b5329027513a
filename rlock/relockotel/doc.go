// Package relockotel records the events of rlock's locks as OpenTelemetry
// metrics and spans.
//
// NewObserver returns an rlock.Observer; pass it to rlock.New with
// rlock.WithObserver:
//
//	obs, err := relockotel.NewObserver()
//	if err != nil { ... }
//	client, err := rlock.New(rdb, rlock.WithObserver(obs))
//
// As in go-redis's redisotel, the meter and tracer are named ScopeName
// (this module's path) and come from the global providers unless
// WithMeterProvider or WithTracerProvider give others; WithAttributes adds
// attributes to every measurement and span. WithoutMetrics and
// WithoutSpans turn either off.
//
// Every measurement and span has semconv's db.system.name = "redis";
// WithServer(rdb), given the go-redis client passed to rlock.New, adds
// server.address and server.port, so that the locks of two Redis
// deployments are told apart:
//
//	obs, err := relockotel.NewObserver(relockotel.WithServer(rdb))
//
// The Observer records on the goroutine that reports the event, without
// starting goroutines or blocking: rlock calls it on the lock's path.
//
// # Metrics
//
// Durations are in seconds, as OpenTelemetry's semantic conventions
// recommend, in histograms with explicit buckets from 0.5 ms to 60 s.
// Lock metrics have the attributes relock.lock.kind (mutex, fenced, fair,
// read-write, fair-read-write, election, and the kinds of semaphores,
// latches and rate limiters) and, for read-write locks, relock.lock.mode
// (read, write). They do not have the lock's name, whose values are
// unbounded in many applications; WithLockNameAttribute adds it as
// relock.lock.name, for applications with a few fixed names.
//
//	Name                           Instrument     Unit           Attributes             Recorded
//	relock.lock.wait.duration      Histogram      s              kind, mode, error.type every acquisition's wait, when it ends
//	relock.lock.acquisitions       Counter        {acquisition}  kind, mode, error.type every acquisition, when it ends
//	relock.lock.handoffs           Counter        {acquisition}  kind, mode             acquisitions that took the lock after a release woke them
//	relock.lock.wakeups            Counter        {wakeup}       kind, mode             waiters woken by a release (a message, or a hand-off in the Client)
//	relock.lock.holds.active       UpDownCounter  {hold}         kind, mode             holds that started (first acquisition) and have not ended (last release, loss)
//	relock.lock.hold.duration      Histogram      s              kind, mode, outcome    how long each hold lasted, when it ends: outcome released or lost
//	relock.lock.lost               Counter        {hold}         kind, mode             holds that ended without Unlock
//	relock.lock.waiters.active     UpDownCounter  {waiter}       kind, mode             acquisitions waiting for a busy lock now
//	relock.lock.renewals           Counter        {hold}         error.type             holds in the watchdog's renewal calls
//	relock.lock.renewal.duration   Histogram      s              error.type             the round trip of each renewal call
//	relock.subscriptions.replaced  Counter        {connection}   (none)                 pub/sub connections that failed or fell silent and were replaced
//	relock.election.terms          Counter        {term}         kind                   terms that began (campaigns elected)
//	relock.election.leaders.active UpDownCounter  {term}         kind                   terms that began and have not ended
//	relock.election.term.duration  Histogram      s              kind, outcome          how long each term lasted, when it ends: outcome resigned, lost or closed
//	relock.election.proclamations  Counter        {proclamation} kind                   values leaders proclaimed
//
// Every metric also has the attributes given with WithAttributes.
//
// Failures are classified by semconv's error.type, present only on a
// failed acquisition or renewal (its absence is success), with a few
// fixed values (the Error constants): timeout when an acquisition's wait
// elapsed (or a TryLock's single attempt found the lock busy); canceled
// or deadline_exceeded when its context ended; closed, wrong_type,
// invalid_argument, not_replicated for rlock's errors; redis for an error
// reply of the server, io_timeout for no answer in time, _OTHER otherwise.
// relock.outcome remains only on relock.lock.hold.duration, where it is
// not a failure but how the hold ended: released (by its last Unlock) or
// lost.
//
// A hold starts at an owner's first acquisition (not at a reentry) and
// ends at its last release or its loss, once: a loss by expiry followed by
// an Unlock that still found the lock is one end. An owner's hold that is
// neither released nor lost when its Client closes stays counted in
// relock.lock.holds.active, since rlock reports no event for it.
//
// A renewal that got an answer counts its holds as renewed, including those
// it found gone, which relock.lock.lost counts too.
//
// # Spans
//
// Spans are of kind internal, parented on the context of the call when
// rlock gives one (rlock.Event.Context), and timed by the event, so they
// cover the call even though they are made when it ends:
//
//   - relock.Lock, for every acquisition (Lock, TryLock, LockWithLease, and
//     the read and write sides of read-write locks), from the call to taking
//     the lock or giving up. Attributes: relock.lock.name, relock.lock.kind,
//     relock.lock.mode (read-write locks), relock.owner, relock.attempts,
//     relock.wakeups, error.type when it failed; when acquired also
//     relock.reentry, relock.hold.count, relock.lease.duration (s) and
//     relock.watchdog. The status is Error when the acquisition failed
//     (error.type is set), with the error's message, or "the wait elapsed"
//     for a timeout.
//   - relock.Unlock, for every successful release, timed by its round trip.
//     Attributes: the lock's and owner's as above, relock.hold.count (holds
//     left) and, for the last release, relock.hold.duration (s); the last
//     release links to the relock.Lock span that started the hold.
//   - relock.Lost, for every hold lost, an instant at the moment rlock
//     learned of the loss. It begins a trace of its own (a loss happens on
//     no caller's behalf) and links to the relock.Lock span that started
//     the hold. Attributes: the lock's and owner's, relock.hold.count and
//     relock.hold.duration (s), error.type lost; its status is Error with
//     the reason.
//   - relock.Campaign, for every Campaign elected, from the call to the
//     election. Attributes: the lock's and the term owner's, and
//     relock.term.token.
//   - relock.Term, for every term, from its election to its end, made when
//     it ends, in a trace of its own. Attributes: the lock's and owner's,
//     relock.term.token, relock.outcome (resigned, lost, closed); its
//     status is Error with the cause when the term ended other than by
//     Resign.
//
// A term's lock is a fair lock of kind election: its acquisition, release
// and loss are recorded as any lock's, relock.Lock, relock.Unlock and
// relock.Lost spans included. The term durations have buckets from a
// second to a day.
//
// Watchdog renewals and replaced subscriptions make no spans: they are
// background work, which the metrics above count.
//
// # Semaphores, count-down latches and rate limiters
//
// Their events have the kinds semaphore, permit-semaphore,
// count-down-latch and rate-limiter. An acquisition of permits (Acquire,
// TryAcquire; a rate limiter's Allow, Wait, TryWait: a refused Allow
// ends with error.type timeout) and a latch's Await are recorded as a
// lock's acquisition is, in
// relock.lock.wait.duration, relock.lock.acquisitions,
// relock.lock.handoffs, relock.lock.wakeups and relock.lock.waiters.active,
// and as a relock.Acquire span (relock.permits: the permits taken;
// relock.attempts, relock.wakeups, error.type as for relock.Lock). A
// Release (a semaphore's or a rate limiter's) or CountDown is a
// relock.Release span, with relock.permits released or relock.latch.count
// left. Permits and counts belong to no
// owner, so these spans have no relock.owner, and neither starts or ends a
// hold: the hold metrics and relock.Lost are the locks' alone.
package relockotel
