package debuglocks

import (
	"context"
	"strings"
	"time"

	"github.com/relock-go/relock/rlock"
)

// election is one of the Client's leader elections: what the Client does
// in it, and what Redis holds of it.
type election struct {
	Name string `json:"name"`
	// Role is what this Client does there: "leader", "candidate" or
	// "observer" (the first that applies).
	Role string `json:"role"`
	// Terms are this Client's terms in it; Campaigns and Observers count
	// its campaigns and Observe calls.
	Terms     []leader `json:"terms"`
	Campaigns int      `json:"campaigns"`
	Observers int      `json:"observers"`
	// Leader is the election's leader in Redis, absent when none;
	// Candidates how many candidates wait in its queue.
	Leader     *leader `json:"leader,omitempty"`
	Candidates int     `json:"candidates"`
	Error      string  `json:"error,omitempty"` // why Redis could not be read
}

// leader is an rlock.Leader as shown.
type leader struct {
	Value    string    `json:"value"`
	Token    int64     `json:"token"`
	Owner    string    `json:"owner"`
	Since    time.Time `json:"since"`
	LeaderMS millis    `json:"leader_ms"` // how long it has led, by this process's clock
	Local    bool      `json:"local"`     // a term of this Client
}

// leaderOf is l as shown at now; client is this Client's id.
func leaderOf(l rlock.Leader, client string, now time.Time) leader {
	local := strings.HasPrefix(l.Owner, client+":")
	return leader{Value: l.Value, Token: l.Token, Owner: l.Owner, Since: l.Since, LeaderMS: millis(now.Sub(l.Since)), Local: local}
}

// elections lists the Client's elections, each with its leader and
// candidates in Redis, read by Inspect under the page's timeout.
func (h handler) elections(ctx context.Context, now time.Time) []election {
	list := h.c.Elections()
	if len(list) == 0 {
		return []election{}
	}
	ctx, cancel := context.WithTimeout(ctx, inspectTimeout)
	defer cancel()
	client := h.c.ID()
	es := make([]election, 0, len(list))
	for _, e := range list {
		v := election{Name: e.Name, Campaigns: e.Campaigns, Observers: e.Observers, Terms: []leader{}}
		for _, t := range e.Terms {
			v.Terms = append(v.Terms, leaderOf(t, client, now))
		}
		switch {
		case len(e.Terms) > 0:
			v.Role = "leader"
		case e.Campaigns > 0:
			v.Role = "candidate"
		default:
			v.Role = "observer"
		}
		info, err := h.c.Inspect(ctx, e.Name)
		if err != nil {
			v.Error = err.Error()
		} else {
			v.Leader, v.Candidates = leaderView(info.Leader, client, now), len(info.Queue)
		}
		es = append(es, v)
	}
	return es
}

// leaderView is an inspected election's leader as shown: nil when none.
func leaderView(l *rlock.Leader, client string, now time.Time) *leader {
	if l == nil {
		return nil
	}
	v := leaderOf(*l, client, now)
	return &v
}
