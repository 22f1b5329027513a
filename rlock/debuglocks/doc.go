// Package debuglocks serves an operator's page of a Client's locks, in the
// spirit of net/http/pprof: what this process holds and waits for
// (rlock.Client.Activity) and, for a lock named in the page's form, what
// Redis holds of it, whichever client (Go or Java) took it
// (rlock.Client.Inspect).
//
// # Mounting
//
// Handler returns the page's http.Handler; mount it at a path of your
// choice, typically /debug/locks:
//
//	mux.Handle("/debug/locks", debuglocks.Handler(c))
//
// Nothing is registered on http.DefaultServeMux.
//
// The page shows lock names and owner ids, and its form makes this process
// read any key that an operator names from Redis (Inspect changes nothing).
// Mount it only where you would mount net/http/pprof: on an internal or
// administrative listener, behind authentication, never on a public port.
//
// # The page
//
// A GET, whatever its path (the handler ignores it), returns a
// self-contained HTML page (inline CSS, no script, no external asset):
// this Client's holds and waiters, and a form whose text field "name"
// names a lock to inspect. With ?name=X the page adds Inspect's view of X:
// its kind, mode, TTL, holders, fair queue (head first), subscribers and
// fencing token. An Inspect error (a key of that name that is not a lock,
// Redis unreachable, the 5 s timeout) is shown in an error box on an
// otherwise normal page (status 200); an empty name is ignored. Only GET
// and HEAD are allowed (405 otherwise), and a format other than json or
// html is a 400. Elements carry stable ids and classes for scraping:
//
//	#client                    the Client's id
//	table#holds    tr.hold     one per hold: td.name, td.kind, td.mode,
//	                           td.owner, td.count, td.since, td.held-for,
//	                           td.lease, td.watchdog, td.last-renewal,
//	                           td.lease-end
//	table#waiters  tr.waiter   one per waiter: td.name, td.kind, td.mode,
//	                           td.owner, td.since, td.waiting-for,
//	                           td.attempts, td.wakeups
//	section#inspect            with ?name=X: div#inspect-error on error,
//	                           else dl#lock (dd#kind, #held, #mode, #ttl,
//	                           #subscribers, #token, #local)
//	table#holders  tr.holder   td.owner, td.client, td.count, td.mode, td.ttl
//	table#queue    tr.queued   td.position, td.owner, td.mode,
//	                           td.deadline-in, td.client-kind
//
// Rows of this Client's own owners in #holders and #queue have the class
// "local" too. Times are shown in the server's time zone, each in a <time>
// element whose datetime attribute is RFC 3339.
//
// # JSON
//
// ?format=json returns the same data as JSON (application/json), also
// with status 200 when Inspect fails:
//
//	{
//	  "client": "<client id>",
//	  "time": "<RFC 3339 time of the snapshot>",
//	  "activity": {
//	    "holds": [{"name", "kind", "mode", "owner", "count", "since",
//	               "held_ms", "lease_ms", "watchdog", "last_renewal",
//	               "lease_end", "lease_left_ms"}],
//	    "waiters": [{"name", "kind", "mode", "owner", "since",
//	                 "waiting_ms", "attempts", "wakeups"}]
//	  },
//	  "inspect": {"name", "error"}            // with ?name=X, on error
//	  "inspect": {"name", "kind", "held", "mode", "ttl_ms",
//	              "holders": [{"owner", "client", "count", "mode",
//	                           "ttl_ms", "local"}],
//	              "queue": [{"position", "owner", "mode", "deadline",
//	                         "deadline_in_ms", "relock", "local"}],
//	              "subscribers", "token",
//	              "local": {"holds": [...], "waiters": [...]}}
//	}
//
// Durations are whole milliseconds, in fields named *_ms: held_ms and
// waiting_ms since the hold or acquisition began, lease_left_ms and
// deadline_in_ms until the lease end or the queue deadline (negative once
// passed). A lock's ttl_ms is 0 when it is not held and -1 when it has no
// TTL; a holder's ttl_ms is a reader's own lease in a read-write lock, 0
// otherwise. Times are RFC 3339 strings with nanoseconds; last_renewal and
// lease_end are left out when unknown (lease_left_ms is 0 then), and mode
// when empty. A queue's position counts from 1, the head. In inspect,
// "local" marks an owner of this Client, and the "local" object is this
// Client's holds and waiters of the lock. A queue deadline is Redis's
// clock, and deadline_in_ms compares it with this process's: the two
// differ by the clocks' skew.
package debuglocks
