package debuglocks

import (
	"strconv"
	"time"

	"github.com/relock-go/relock/rlock"
)

// The page's data, rendered by the HTML template and encoded as JSON alike
// (the JSON shape is documented in doc.go).

// page is one response.
type page struct {
	Client string `json:"client"`
	// Label is this Client's name (rlock.WithClientName) and host.
	Label    string    `json:"label,omitempty"`
	Time     time.Time `json:"time"`
	Activity activity  `json:"activity"`
	// Elections are the Client's leader elections (election.go).
	Elections []election  `json:"elections"`
	Inspect   *inspection `json:"inspect,omitempty"`
	// Refresh is ?refresh's period; 0: none.
	Refresh refresh `json:"-"`
}

// refresh is how often the page reloads itself.
type refresh time.Duration

// String is the period as ?refresh takes it.
func (r refresh) String() string { return time.Duration(r).String() }

// Seconds is the period in whole seconds, rounded up, as the refresh meta
// element takes it.
func (r refresh) Seconds() int64 { return int64((time.Duration(r) + time.Second - 1) / time.Second) }

// activity is rlock.Activity, with ages and lease ends relative to now.
type activity struct {
	Holds   []hold   `json:"holds"`
	Waiters []waiter `json:"waiters"`
}

type hold struct {
	Name        string     `json:"name"`
	Kind        rlock.Kind `json:"kind"`
	Mode        string     `json:"mode,omitempty"`
	Owner       string     `json:"owner"`
	Count       int        `json:"count"`
	Since       time.Time  `json:"since"`
	HeldFor     millis     `json:"held_ms"`
	Lease       millis     `json:"lease_ms"`
	Watchdog    bool       `json:"watchdog"`
	LastRenewal time.Time  `json:"last_renewal,omitzero"`
	LeaseEnd    time.Time  `json:"lease_end,omitzero"`
	LeaseLeft   millis     `json:"lease_left_ms"`
}

type waiter struct {
	Name       string     `json:"name"`
	Kind       rlock.Kind `json:"kind"`
	Mode       string     `json:"mode,omitempty"`
	Owner      string     `json:"owner"`
	Permits    int        `json:"permits,omitempty"` // a semaphore's waiter's
	Since      time.Time  `json:"since"`
	WaitingFor millis     `json:"waiting_ms"`
	Attempts   int        `json:"attempts"`
	Wakeups    int        `json:"wakeups"`
}

// inspection is the outcome of Inspect: its error, or the lock.
type inspection struct {
	Name string `json:"name"`
	// AskedKind is ?kind, the kind the operator said (rlock.InspectKind).
	AskedKind rlock.Kind `json:"-"`
	Error     string     `json:"error,omitempty"`
	*lockView
}

type lockView struct {
	Kind        rlock.Kind `json:"kind"`
	Held        bool       `json:"held"`
	Mode        string     `json:"mode,omitempty"`
	TTL         ttl        `json:"ttl_ms"`
	Holders     []holder   `json:"holders"`
	Queue       []queued   `json:"queue"`
	Subscribers int        `json:"subscribers"`
	Token       int64      `json:"token"`
	Leader      *leader    `json:"leader,omitempty"` // an election's
	// Count is a semaphore's or a rate limiter's available permits or a
	// latch's count, absent for a lock; Permits a permit-expirable
	// semaphore's leases; Rate a rate limiter's rate.
	Count   *int64   `json:"count,omitempty"`
	Permits []permit `json:"permits,omitempty"`
	Rate    *rate    `json:"rate,omitempty"`
	// Clients are a rate limiter per client's clients that took permits,
	// each with its own available (Count is this Client's).
	Clients []rateClient `json:"clients,omitempty"`
	Local   activity     `json:"local"`
}

// rateClient is rlock.RateClient as shown.
type rateClient struct {
	Client    string             `json:"client"`
	Label     *rlock.ClientLabel `json:"label,omitempty"` // that Client's, when it has one
	Available int64              `json:"available"`
	Local     bool               `json:"local"` // this Client
}

// rate is rlock.Rate as shown.
type rate struct {
	Limit     int    `json:"limit"`
	Interval  millis `json:"interval_ms"`
	PerClient bool   `json:"per_client"`
	KeepAlive millis `json:"keep_alive_ms"` // 0: none
}

// String is the rate as the page says it: "100 per 1s, overall".
func (r rate) String() string {
	s := strconv.Itoa(r.Limit) + " per " + r.Interval.String()
	if r.PerClient {
		s += ", per client"
	} else {
		s += ", overall"
	}
	if r.KeepAlive > 0 {
		s += ", kept " + r.KeepAlive.String() + " idle"
	}
	return s
}

type permit struct {
	ID        string    `json:"id"`
	Expiry    time.Time `json:"expiry,omitzero"`         // absent: never
	ExpiresIn *millis   `json:"expires_in_ms,omitempty"` // absent: never
}

type holder struct {
	Owner  string             `json:"owner"`
	Client string             `json:"client"`          // the client id part of Owner
	Label  *rlock.ClientLabel `json:"label,omitempty"` // that Client's, when it has one
	Count  int                `json:"count"`
	Mode   string             `json:"mode,omitempty"`
	TTL    ttl                `json:"ttl_ms"`
	Local  bool               `json:"local"` // an owner of this Client
}

type queued struct {
	Position   int                `json:"position"` // 1: the head
	Owner      string             `json:"owner"`
	Client     string             `json:"client"`          // the client id part of Owner
	Label      *rlock.ClientLabel `json:"label,omitempty"` // that Client's, when it has one
	Mode       string             `json:"mode,omitempty"`
	Deadline   time.Time          `json:"deadline"`
	DeadlineIn millis             `json:"deadline_in_ms"`
	Relock     bool               `json:"relock"`
	Local      bool               `json:"local"` // an owner of this Client
}

func activityOf(a rlock.Activity, now time.Time) activity {
	v := activity{Holds: make([]hold, 0, len(a.Holds)), Waiters: make([]waiter, 0, len(a.Waiters))}
	for _, h := range a.Holds {
		v.Holds = append(v.Holds, hold{
			Name: h.Name, Kind: h.Kind, Mode: h.Mode, Owner: h.Owner, Count: h.Count,
			Since: h.Since, HeldFor: millis(now.Sub(h.Since)), Lease: millis(h.Lease),
			Watchdog: h.Watchdog, LastRenewal: h.LastRenewal,
			LeaseEnd: h.LeaseEnd,
		})
		if !h.LeaseEnd.IsZero() {
			v.Holds[len(v.Holds)-1].LeaseLeft = millis(h.LeaseEnd.Sub(now))
		}
	}
	for _, w := range a.Waiters {
		v.Waiters = append(v.Waiters, waiter{
			Name: w.Name, Kind: w.Kind, Mode: w.Mode, Owner: w.Owner, Permits: w.Permits,
			Since: w.Since, WaitingFor: millis(now.Sub(w.Since)), Attempts: w.Attempts, Wakeups: w.Wakeups,
		})
	}
	return v
}

// lockOf is info as shown; client is this Client's id.
func lockOf(info rlock.LockInfo, client string, now time.Time) *lockView {
	v := &lockView{
		Kind: info.Kind, Held: info.Held, Mode: info.Mode, TTL: ttl(info.TTL),
		Holders: make([]holder, 0, len(info.Holders)), Queue: make([]queued, 0, len(info.Queue)),
		Subscribers: info.Subscribers, Token: info.Token, Local: activityOf(info.Local, now),
		Leader: leaderView(info.Leader, client, now),
	}
	for _, h := range info.Holders {
		v.Holders = append(v.Holders, holder{
			Owner: h.Owner, Client: h.Client, Label: h.Label, Count: h.Count, Mode: h.Mode, TTL: ttl(h.TTL),
			Local: h.Client == client,
		})
	}
	for i, q := range info.Queue {
		v.Queue = append(v.Queue, queued{
			Position: i + 1, Owner: q.Owner, Client: q.Client, Label: q.Label, Mode: q.Mode,
			Deadline: q.Deadline, DeadlineIn: millis(q.Deadline.Sub(now)), Relock: q.Relock,
			Local: q.Client == client,
		})
	}
	if r := info.Rate; r != nil {
		v.Rate = &rate{Limit: r.Limit, Interval: millis(r.Interval), PerClient: r.PerClient, KeepAlive: millis(r.KeepAlive)}
	}
	for _, c := range info.RateClients {
		v.Clients = append(v.Clients, rateClient{Client: c.Client, Label: c.Label, Available: c.Available, Local: c.Client == client})
	}
	if info.Kind.Counting() {
		v.Count = &info.Count
		for _, p := range info.Permits {
			pv := permit{ID: p.ID, Expiry: p.Expiry}
			if !p.Expiry.IsZero() {
				in := millis(p.Expiry.Sub(now))
				pv.ExpiresIn = &in
			}
			v.Permits = append(v.Permits, pv)
		}
	}
	return v
}

// Expires tells when the permit's lease ends: "in 3s", "3s ago", or
// "never".
func (p permit) Expires() string {
	if p.ExpiresIn == nil {
		return "never"
	}
	return until(*p.ExpiresIn)
}

// millis is a duration, encoded in JSON as whole milliseconds and shown
// rounded to the millisecond.
type millis time.Duration

func (d millis) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, time.Duration(d).Milliseconds(), 10), nil
}

func (d millis) String() string {
	if t := time.Duration(d); t > -time.Millisecond && t < time.Millisecond {
		return t.String()
	}
	return time.Duration(d).Round(time.Millisecond).String()
}

// ttl is a time to live: 0 for none applicable, negative for no expiry
// (encoded as -1).
type ttl time.Duration

func (d ttl) MarshalJSON() ([]byte, error) {
	if d < 0 {
		return []byte("-1"), nil
	}
	return millis(d).MarshalJSON()
}

func (d ttl) String() string {
	switch {
	case d < 0:
		return "no expiry"
	case d == 0:
		return "–"
	}
	return millis(d).String()
}
