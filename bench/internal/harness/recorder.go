package harness

import (
	"sync"
	"time"
)

// overtakeSlack is how much earlier a waiter must have started waiting for
// a grant to someone else to count as out of order: enqueue order is fixed
// when a first attempt reaches the server, which scheduling can delay.
const overtakeSlack = 2 * time.Millisecond

// recorder watches one hot lock from inside the critical sections: it
// checks mutual exclusion and records who got the lock, when, and after how
// long a wait. Only acquisitions made inside the window [from, to) count.
type recorder struct {
	from, to time.Time

	mu          sync.Mutex
	holder      int         // goroutine in the critical section, -1 if none
	lastHolder  int         // goroutine that released last, -1 if none
	lastRelease time.Time   // when lastHolder started its Unlock
	waitingFrom []time.Time // per goroutine: start of its Lock call, zero when not waiting
	// lines: the waiters queue in a line (strategy.Queued), and queuedAt
	// is, per goroutine waiting in it, when it joined it (zero when not).
	lines    bool
	queuedAt []time.Time

	acquisitions int64
	perGoroutine []int64
	perClient    []int64
	rewins       int64
	overtakes    int64
	violations   int64
	errors       int64
	firstError   error
	waits        []time.Duration
	cut          int
	gaps         []time.Duration
	holds        []time.Duration

	// Hand-offs timed from the releaser's Unlock returning, which may come
	// after the next holder's Lock returned: releases are numbered (seq,
	// and per goroutine its last one), and each gap is recorded once both
	// of its ends are known (open: those with one end so far).
	seq        int64
	releaseSeq []int64
	open       map[int64]*gapEnds
	returnGaps []time.Duration
}

// gapEnds are the two ends of one hand-off timed from Unlock's return.
type gapEnds struct {
	returned, next time.Time
	counted        bool // the next acquisition falls in the measured window
}

func newRecorder(goroutines, clients int, from, to time.Time) *recorder {
	return &recorder{
		from: from, to: to, holder: -1, lastHolder: -1,
		waitingFrom:  make([]time.Time, goroutines),
		queuedAt:     make([]time.Time, goroutines),
		perGoroutine: make([]int64, goroutines),
		perClient:    make([]int64, clients),
		releaseSeq:   make([]int64, goroutines),
		open:         map[int64]*gapEnds{},
	}
}

// ends are the ends of the hand-off after release seq. Called with mu
// held.
func (r *recorder) ends(seq int64) *gapEnds {
	e := r.open[seq]
	if e == nil {
		e = &gapEnds{}
		r.open[seq] = e
	}
	return e
}

// settle records the hand-off after release seq once both of its ends are
// known. Called with mu held.
func (r *recorder) settle(seq int64) {
	e := r.open[seq]
	if e.returned.IsZero() || e.next.IsZero() {
		return
	}
	if e.counted {
		r.returnGaps = append(r.returnGaps, e.next.Sub(e.returned))
	}
	delete(r.open, seq)
}

// waiting records that goroutine g calls Lock now, and returns the time.
func (r *recorder) waiting(g int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := time.Now()
	r.waitingFrom[g] = t
	return t
}

// queued records that goroutine g, waiting, joined the lock's line at at:
// the order of the line is the order grants must follow.
func (r *recorder) queued(g int, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.waitingFrom[g].IsZero() {
		r.queuedAt[g] = at
	}
}

// acquired records that goroutine g of client c holds the lock since now.
func (r *recorder) acquired(g, c int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	start, queued := r.waitingFrom[g], r.queuedAt[g]
	r.waitingFrom[g], r.queuedAt[g] = time.Time{}, time.Time{}
	if r.holder >= 0 {
		r.violations++
	}
	r.holder = g
	if r.seq > 0 {
		e := r.ends(r.seq)
		e.next, e.counted = now, !now.Before(r.from) && now.Before(r.to)
		r.settle(r.seq)
	}
	if !now.Before(r.to) {
		// Granted after the run: the wait counts as cut off at its end.
		if start.Before(r.to) {
			r.waits = append(r.waits, r.to.Sub(start))
			r.cut++
		}
		return now
	}
	if now.Before(r.from) {
		return now
	}
	r.acquisitions++
	r.perGoroutine[g]++
	r.perClient[c]++
	r.waits = append(r.waits, now.Sub(start))
	if r.lastHolder >= 0 {
		r.gaps = append(r.gaps, now.Sub(r.lastRelease))
		if r.lastHolder == g {
			r.rewins++
		}
	}
	// Where waiters queue in a line, order is the line's: an owner that
	// has not joined it yet cannot be overtaken, one granted the lock
	// without queueing overtook nobody already there when it called Lock.
	waiting, judged := r.waitingFrom, start
	if r.lines {
		waiting = r.queuedAt
		if !queued.IsZero() {
			judged = queued
		}
	}
	for o, t := range waiting {
		if o != g && !t.IsZero() && t.Add(overtakeSlack).Before(judged) {
			r.overtakes++
			break
		}
	}
	return now
}

// releasing records that goroutine g, which acquired at since, leaves the
// critical section and is about to call Unlock.
func (r *recorder) releasing(g int, since time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.holder == g {
		r.holder = -1
	}
	r.lastHolder, r.lastRelease = g, now
	r.seq++
	r.releaseSeq[g] = r.seq
	if !since.Before(r.from) && since.Before(r.to) {
		r.holds = append(r.holds, now.Sub(since))
	}
}

// released records that goroutine g's Unlock returned.
func (r *recorder) released(g int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seq := r.releaseSeq[g]
	if seq == 0 {
		return
	}
	r.ends(seq).returned = time.Now()
	r.settle(seq)
}

// cutOff records that goroutine g's wait was cut off by the end of the run.
func (r *recorder) cutOff(g int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if start := r.waitingFrom[g]; !start.IsZero() {
		r.waits = append(r.waits, r.to.Sub(start))
		r.cut++
		r.waitingFrom[g], r.queuedAt[g] = time.Time{}, time.Time{}
	}
}

// failed records an error from Lock or Unlock.
func (r *recorder) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors++
	if r.firstError == nil {
		r.firstError = err
	}
}
