package rlock

import (
	"sync"
	"sync/atomic"

	"github.com/relock-go/relock/scripts"
)

// requests numbers a Client's requests that change a semaphore's or a
// latch's count, and lends each a field of the Client's request records
// (scripts.Request) while it is in flight. A field is lent to one request
// at a time and comes back when the request ended, answered or given up,
// so the records of one object hold as many fields as the Client ever had
// such requests in flight at once; their numbers only grow, so a field's
// next request always has a greater one.
type requests struct {
	seq  atomic.Uint64
	mu   sync.Mutex
	free []int // fields lent before and back, the latest last
	lent int   // fields ever lent: the next new one
}

// requestsOf are the requests of each Client.
var requestsOf = newKindState(func(*Client) *requests { return &requests{} })

// begin returns a new request of the Client c, and the function that ends
// it, giving its field back: call it once its last send returned.
func (r *requests) begin(c *Client) (scripts.Request, func()) {
	r.mu.Lock()
	var field int
	if n := len(r.free); n > 0 {
		field, r.free = r.free[n-1], r.free[:n-1]
	} else {
		field = r.lent
		r.lent++
	}
	r.mu.Unlock()
	req := scripts.Request{Client: c.ids.Client(), Field: field, Seq: r.seq.Add(1), TTL: c.recordTTL}
	return req, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.free = append(r.free, field)
	}
}
