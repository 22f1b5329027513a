package rlock

import (
	"context"
	"errors"
	"time"
)

// Kind names a kind of lock or of counting object, in events and in
// Inspect.
type Kind string

// EventType tells what an Event reports.
type EventType int

// The events a Client reports to its observers (WithObserver).
const (
	// EventWaitStarted: an acquisition found the lock busy and starts
	// waiting for it (its first attempt failed, or it queued behind this
	// Client's waiters without one). Wait and Attempts so far.
	EventWaitStarted EventType = iota + 1
	// EventWoken: a waiter was woken by a release: a release message, to
	// retry, or a release in this Client that passed it the lock. Wakeups
	// counts this one.
	EventWoken
	// EventAcquired: an acquisition took the lock. Wait is the time since
	// the acquisition began (a round trip when the lock was free): since
	// the call, or, for a goroutine that waited behind another goroutine
	// of the same handle, since its turn at the handle came (that wait is
	// the handle's, not Redis's); Attempts the acquire scripts run,
	// Wakeups the releases that woke it, Reentry whether the owner held
	// it already, Count the hold count now, Lease the hold's lease and
	// Watchdog whether the watchdog renews it. Granted reports a lock handed over by the release itself
	// (a fair lock's, or a Mutex's release in the same Client): the
	// acquisition ran no script after the release. For a semaphore, Count
	// is the permits taken (1 for a PermitExpirableSemaphore's), and
	// Owner, Reentry, Lease and Watchdog are zero; a CountDownLatch's
	// Await that saw zero reports it with Count 0.
	EventAcquired
	// EventNotAcquired: an acquisition gave up. Err is nil when its wait
	// elapsed (or a TryLock's single attempt found the lock busy), else why:
	// ctx.Err(), ErrClosed, a Redis error. Wait, Attempts, Wakeups as for
	// EventAcquired. Both events report Waited when the acquisition waited
	// (reported EventWaitStarted), so that waits under way can be counted.
	EventNotAcquired
	// EventReleased: an Unlock released one acquisition. Count is the hold
	// count left; when 0 the lock was released and Held is how long this
	// owner held it. Latency is how long the Unlock took. For a semaphore,
	// a Release, with Count the permits released (AddPermits reports
	// none); for a CountDownLatch, a CountDown, with Count the count left.
	// Owner and Held are zero for both.
	EventReleased
	// EventRenewed: the watchdog renewed a batch of Count holds (of one
	// script call) in Latency. Name and Owner are empty.
	EventRenewed
	// EventRenewalFailed: a watchdog renewal of Count holds got no answer
	// (Err) after Latency; the holds stay held until their leases end.
	// Name and Owner are empty.
	EventRenewalFailed
	// EventLost: a hold ended without Unlock. Err wraps ErrLost and tells
	// why (a renewal or a release found the lock gone, or the lease ran
	// out before a renewal reached Redis); Held is how long it was held.
	EventLost
	// EventSubscriptionReplaced: a pub/sub connection failed or fell
	// silent (Err) and was replaced; its Count channels were subscribed
	// again and their waiters retry. Name and Owner are empty.
	EventSubscriptionReplaced
	// EventElected: a Campaign was elected (Kind KindElection). Token is
	// its term's, Owner the term's owner, Wait the campaign's length.
	// (The term's lock reports its own events too, of kind KindElection.)
	EventElected
	// EventProclaimed: a leader changed its value (Token: its term's).
	EventProclaimed
	// EventResigned: a leader resigned; Held is how long its term lasted.
	EventResigned
	// EventTermLost: a term ended other than by Resign: Err wraps ErrLost
	// (its lock was lost, or a Proclaim found it gone) or is ErrClosed
	// (its Client closed). Held and Token as for EventResigned.
	EventTermLost
)

var eventNames = [...]string{
	EventWaitStarted:          "wait-started",
	EventWoken:                "woken",
	EventAcquired:             "acquired",
	EventNotAcquired:          "not-acquired",
	EventReleased:             "released",
	EventRenewed:              "renewed",
	EventRenewalFailed:        "renewal-failed",
	EventLost:                 "lost",
	EventSubscriptionReplaced: "subscription-replaced",
	EventElected:              "elected",
	EventProclaimed:           "proclaimed",
	EventResigned:             "resigned",
	EventTermLost:             "term-lost",
}

// String is the event type's name, as in logs: "acquired", "lost", ...
func (t EventType) String() string {
	if t > 0 && int(t) < len(eventNames) {
		return eventNames[t]
	}
	return "unknown"
}

// Event is one thing that happened to a Client's locks. Which fields are
// set depends on Type (see the EventType constants); the others are zero.
type Event struct {
	Type  EventType
	Time  time.Time // when it happened
	Name  string    // the lock's name
	Kind  Kind      // the lock's kind
	Mode  string    // ModeRead or ModeWrite for a read-write lock; "" otherwise
	Owner string    // the owner id: "<client id>:<sequence>"

	Wait     time.Duration // since the acquisition began
	Attempts int           // acquire scripts run by the acquisition
	Wakeups  int           // releases that woke the acquisition (see EventWoken)
	Reentry  bool          // the owner held the lock already
	Granted  bool          // handed over by the release itself
	Waited   bool          // the acquisition reported EventWaitStarted
	Lease    time.Duration // the hold's lease
	Watchdog bool          // the watchdog renews the hold
	Held     time.Duration // how long the hold lasted
	Count    int           // hold count; or holds renewed; or channels resubscribed
	Latency  time.Duration // a renewal's round trip, or an Unlock's
	Token    int64         // a term's fencing token (the election events)
	Err      error         // why, where the type says

	// Context is the ctx of the call the event belongs to (Lock, TryLock,
	// Unlock: the acquisition and release events), so that a tracer can
	// parent a span of the call on the caller's; nil for the events of the
	// watchdog, of holds lost and of subscriptions.
	Context context.Context
}

// Observer receives the events of a Client's locks (WithObserver), for
// metrics, traces and logs. ObserveLock is called on the goroutine that
// made the event happen, on the lock's path: it must return quickly,
// never block, and not call the Client. It is called concurrently.
type Observer interface {
	ObserveLock(Event)
}

// ObserverFunc is a function as an Observer.
type ObserverFunc func(Event)

// ObserveLock calls f(e).
func (f ObserverFunc) ObserveLock(e Event) { f(e) }

// WithObserver adds o to the observers of the Client's events; every
// observer gets every event, in the order they were added. A Client
// without observers builds no events.
func WithObserver(o Observer) Option {
	return func(opts *options) error {
		if o == nil {
			return errors.New("WithObserver: nil Observer")
		}
		opts.observers = append(opts.observers, o)
		return nil
	}
}

// observers is the Observer of a Client with several.
type observers []Observer

func (os observers) ObserveLock(e Event) {
	for _, o := range os {
		o.ObserveLock(e)
	}
}

// observer returns the Client's observers as one, nil when it has none.
func (o *options) observer() Observer {
	switch len(o.observers) {
	case 0:
		return nil
	case 1:
		return o.observers[0]
	}
	return observers(o.observers)
}
