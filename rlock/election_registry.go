package rlock

import (
	"cmp"
	"slices"
	"sync"
)

// elections are a Client's elections: its terms, which Close ends first,
// and what goes on in each election of the Client, for Elections.
type elections struct {
	mu      sync.Mutex
	closing bool // Close has begun: no term may begin
	// electing counts the campaigns between winning their lock and
	// recording their term, which Close waits for.
	electing sync.WaitGroup
	terms    map[*Term]struct{}
	names    map[string]*electionUse
}

// electionsOf are the elections of each Client.
var electionsOf = newKindState(func(*Client) *elections { return &elections{} })

// electionUse is what goes on in one election of a Client.
type electionUse struct{ campaigns, observers int }

// use adds campaigns and observers to those of the election name.
func (es *elections) use(name string, campaigns, observers int) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.names == nil {
		es.names = make(map[string]*electionUse)
	}
	u := es.names[name]
	if u == nil {
		u = &electionUse{}
		es.names[name] = u
	}
	u.campaigns += campaigns
	u.observers += observers
	if u.campaigns == 0 && u.observers == 0 {
		delete(es.names, name)
	}
}

// begin reports whether a campaign that won its lock may record its term:
// not once Close has begun. When it may, it must call begun after.
func (es *elections) begin() bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.closing {
		return false
	}
	es.electing.Add(1)
	return true
}

// begun ends what begin began.
func (es *elections) begun() { es.electing.Done() }

// add records a term that began.
func (es *elections) add(t *Term) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.terms == nil {
		es.terms = make(map[*Term]struct{})
	}
	es.terms[t] = struct{}{}
}

// remove forgets a term that ended.
func (es *elections) remove(t *Term) {
	es.mu.Lock()
	defer es.mu.Unlock()
	delete(es.terms, t)
}

// list is the terms on now.
func (es *elections) list() []*Term {
	es.mu.Lock()
	defer es.mu.Unlock()
	ts := make([]*Term, 0, len(es.terms))
	for t := range es.terms {
		ts = append(ts, t)
	}
	return ts
}

// clientClosing ends every term of the Client, which is closing: each
// records its end and releases its lock, concurrently, each bounded by the
// unlock timeout; no term begins after. Called by Close before anything
// stops.
func (es *elections) clientClosing() {
	es.mu.Lock()
	es.closing = true
	es.mu.Unlock()
	es.electing.Wait()
	var wg sync.WaitGroup
	for _, t := range es.list() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.closeByClient()
		}()
	}
	wg.Wait()
}

// ElectionInfo is what a Client does in one leader election, as it knows
// it (Client.Elections): Inspect of the name tells what Redis holds.
type ElectionInfo struct {
	Name string
	// Terms are the Client's terms in the election, as Leaders: the one
	// that leads, and, for a moment, one whose end is being recorded.
	Terms []Leader
	// Campaigns is how many of the Client's campaigns wait to be elected
	// (or lead: a Campaign counts until it returns).
	Campaigns int
	// Observers is how many Observe calls of the Client follow it.
	Observers int
}

// Elections lists the leader elections in which this Client campaigns,
// leads or observes, by name. It sends nothing to Redis.
func (c *Client) Elections() []ElectionInfo {
	es := electionsOf.in(c)
	es.mu.Lock()
	byName := make(map[string]*ElectionInfo, len(es.names))
	info := func(name string) *ElectionInfo {
		if byName[name] == nil {
			byName[name] = &ElectionInfo{Name: name}
		}
		return byName[name]
	}
	for name, u := range es.names {
		i := info(name)
		i.Campaigns, i.Observers = u.campaigns, u.observers
	}
	es.mu.Unlock()
	for _, t := range es.list() {
		i := info(t.e.name)
		i.Terms = append(i.Terms, t.Leader())
	}
	list := make([]ElectionInfo, 0, len(byName))
	for _, i := range byName {
		slices.SortFunc(i.Terms, func(x, y Leader) int { return cmp.Compare(x.Token, y.Token) })
		list = append(list, *i)
	}
	slices.SortFunc(list, func(x, y ElectionInfo) int { return cmp.Compare(x.Name, y.Name) })
	return list
}
