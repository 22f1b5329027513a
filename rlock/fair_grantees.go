package rlock

import (
	"sync"

	"github.com/relock-go/relock/pubsub"
)

// grantees lists a Client's fair waits that listen on their owner's own
// channel, by owner id: when a release of the Client grants one of them
// the lock, the release's reply names it, and it is told at once
// (Subscription.Grant) rather than when the grant message comes.
type grantees struct {
	mu sync.Mutex
	m  map[string]grantee
}

// granteesOf are the fair waits of each Client that a release may grant
// the lock to.
var granteesOf = newKindState(func(*Client) *grantees { return &grantees{} })

// grantee is one listed wait: its subscription and its grant message.
type grantee struct {
	sub   *pubsub.Subscription
	grant string
}

func (g *grantees) add(owner string, sub *pubsub.Subscription, grant string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = make(map[string]grantee)
	}
	g.m[owner] = grantee{sub, grant}
}

// remove unlists owner's wait whose grant message is grant.
func (g *grantees) remove(owner, grant string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m[owner].grant == grant {
		delete(g.m, owner)
	}
}

// tell tells owner's listed wait whose grant message is grant, if it is
// still listed, that a release granted it the lock. A reply read late may
// name a wait of the owner that has ended: its next wait, granted
// nothing, is not told.
func (g *grantees) tell(owner, grant string) {
	g.mu.Lock()
	w, ok := g.m[owner]
	g.mu.Unlock()
	if ok && w.grant == grant {
		w.sub.Grant(grant)
	}
}
