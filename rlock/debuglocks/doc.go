// Package debuglocks serves an operator's page of a Client's locks, in the
// spirit of net/http/pprof: what this process holds and waits for
// (rlock.Client.Activity), the leader elections it takes part in
// (rlock.Client.Elections) with their leaders and candidates in Redis,
// and, for a lock named in the page's form, what
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
// fencing token; of a semaphore or a count-down latch, its count (a
// semaphore's available permits) and subscribers, and a permit-expirable
// semaphore's leased permits with their expiries; of a rate limiter, its
// rate and the permits available now (for a rate per client, this
// Client's, and every client's that took permits). Redis keeps a
// semaphore's and a latch's count alike, so Inspect calls one a "count"
// until the form's kind (?kind=semaphore, permit-semaphore or
// count-down-latch: rlock.Client.InspectKind) says which; ?kind=rate-limiter
// inspects a rate limiter, and reports any other key as an error. An Inspect error (a key of that name that is not a lock,
// Redis unreachable, the 5 s timeout) is shown in an error box on an
// otherwise normal page (status 200); an empty name is ignored. Only GET
// and HEAD are allowed (405 otherwise), and a format other than json or
// html is a 400. Elements carry stable ids and classes for scraping:
//
//	#client                    the Client's id
//	#label                     its name@host (rlock.WithClientName), if named
//	#as-of                     the time of the snapshot
//	table#holds    tr.hold     one per hold: td.name, td.kind, td.mode,
//	                           td.owner, td.count, td.held-for, td.lease,
//	                           td.renewed ("fixed" for a fixed lease),
//	                           td.lease-left
//	table#waiters  tr.waiter   one per waiter: td.name, td.kind, td.mode,
//	                           td.owner ("–" for a semaphore's or latch's),
//	                           td.waiting-for, td.attempts, td.wakeups,
//	                           td.permits (a semaphore's waiter's)
//	table#elections tr.election one per leader election in which this
//	                           Client leads, campaigns or observes:
//	                           td.name, td.role (leader, candidate or
//	                           observer), td.leader (value and owner, or
//	                           "none"), td.token, td.leads-for,
//	                           td.candidates (waiting in Redis),
//	                           td.observers; td.error instead of the
//	                           leader's cells when Redis could not be read
//	section#inspect            with ?name=X: div#inspect-error on error,
//	                           else dl#lock (dd#kind, #held, #mode, #ttl,
//	                           #subscribers, #token, #local; #leader for a
//	                           leader election)
//	table#holders  tr.holder   td.owner, td.label, td.count, td.mode, td.ttl
//	table#queue    tr.queued   td.position, td.owner, td.label, td.mode,
//	                           td.deadline-in, td.library (relock or redisson)
//	dl#count-of                a semaphore, latch or rate limiter, instead
//	                           of dl#lock and the tables above: dd#kind,
//	                           #count, #subscribers (a rate limiter's
//	                           #rate instead), #local; p#count-kind when
//	                           the kind is a bare count
//	table#permits  tr.permit   a permit-expirable semaphore's: td.id,
//	                           td.expires-in ("never" for no expiry)
//	table#rate-clients tr.rate-client
//	                           a rate limiter per client's clients that
//	                           took permits: td.client, td.label,
//	                           td.available
//
// Rows of this Client's own owners in #holders and #queue, its row in
// #rate-clients, and of the
// elections it leads in #elections, have the class "local" too. "Client" means one thing on the page: an rlock (or
// Redisson) client, known by its id and, when named, its label. The page
// shows one date, the snapshot's "as of" time (in the server's time zone);
// every other time is relative to it ("12.3s", "in 18s", "4s ago"), in a
// <time> element whose datetime attribute is the time in RFC 3339 and
// whose title shows it. The page fits a 1280 px wide window.
//
// ?refresh=5s makes the page reload itself at that period (a duration from
// 1s to 1h, rounded up to whole seconds; anything else is a 400); the
// inspect form and the lock links keep it.
//
// # JSON
//
// ?format=json returns the same data as JSON (application/json), also
// with status 200 when Inspect fails:
//
//	{
//	  "client": "<client id>",
//	  "label": "<name@host>",                 // when the Client is named
//	  "time": "<RFC 3339 time of the snapshot>",
//	  "activity": {
//	    "holds": [{"name", "kind", "mode", "owner", "count", "since",
//	               "held_ms", "lease_ms", "watchdog", "last_renewal",
//	               "lease_end", "lease_left_ms"}],
//	    "waiters": [{"name", "kind", "mode", "owner", "permits", "since",
//	                 "waiting_ms", "attempts", "wakeups"}]
//	  },
//	  "elections": [{"name", "role", "terms": [LEADER], "campaigns",
//	                 "observers", "leader": LEADER, "candidates", "error"}],
//	  "inspect": {"name", "error"}            // with ?name=X, on error
//	  "inspect": {"name", "kind", "held", "mode", "ttl_ms",
//	              "holders": [{"owner", "client", "label", "count", "mode",
//	                           "ttl_ms", "local"}],
//	              "queue": [{"position", "owner", "client", "label", "mode",
//	                         "deadline", "deadline_in_ms", "relock", "local"}],
//	              "subscribers", "token",
//	              "leader": LEADER,           // a leader election's
//	              "count",                    // a semaphore's, latch's or rate limiter's
//	              "permits": [{"id", "expiry", "expires_in_ms"}],
//	              "rate": {"limit", "interval_ms", "per_client", "keep_alive_ms"},
//	              "clients": [{"client", "label", "available", "local"}],
//	              "local": {"holds": [...], "waiters": [...]}}
//	}
//
// A LEADER is {"value", "token", "owner", "since", "leader_ms", "local"}:
// a term's value, fencing token, owner id, start (by the Redis server's
// clock), how long it has led, and whether it is this Client's. An
// election's "terms" are this Client's; its "leader" and "candidates" are
// Redis's, left out when it has no leader ("error" then says why, when
// Redis could not be read).
//
// Durations are whole milliseconds, in fields named *_ms: held_ms and
// waiting_ms since the hold or acquisition began, lease_left_ms and
// deadline_in_ms until the lease end or the queue deadline (negative once
// passed). A lock's ttl_ms is 0 when it is not held and -1 when it has no
// TTL; a holder's ttl_ms is a reader's own lease in a read-write lock, 0
// otherwise. Times are RFC 3339 strings with nanoseconds; last_renewal and
// lease_end are left out when unknown (lease_left_ms is 0 then), and mode
// when empty. A holder's or waiter's "client" is the client id in its
// owner id, and "label" that Client's rlock.ClientLabel ({"name", "host",
// "pid", "started", "conn_name"}), left out when it has none. A queue's
// position counts from 1, the head. In inspect,
// "local" marks an owner of this Client, and the "local" object is this
// Client's holds and waiters of the lock. A queue deadline is Redis's
// clock, and deadline_in_ms compares it with this process's: the two
// differ by the clocks' skew. "count" is left out for a lock, "permits"
// when there are none, "rate" but for a rate limiter that has one, a
// permit's "expiry" and "expires_in_ms" when it never expires, "clients"
// but for a rate limiter per client (whose "count" is this Client's), and a
// waiter's "permits" but for a semaphore's or a rate limiter's.
package debuglocks
