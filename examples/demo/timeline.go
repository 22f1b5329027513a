package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// timeline prints what the services do, each line stamped with the time
// since the demo started. It stands in for the log aggregator in which you
// would watch real services: the services themselves share nothing but
// Redis. It also remembers when the last Unlock began, so that a woken
// waiter can tell how long the hand-off took.
type timeline struct {
	start time.Time

	mu           sync.Mutex // serialises writes to out and guards the fields below
	out          io.Writer
	names        map[string]string // rlock client id -> service name
	lastUnlock   time.Time
	lastUnlocker string
}

func newTimeline(out io.Writer) *timeline {
	return &timeline{start: time.Now(), out: out, names: make(map[string]string)}
}

// scene prints a scene's title.
func (t *timeline) scene(title string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "\n== %s ==\n", title)
}

// say prints one event of the service who.
func (t *timeline) say(who, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.printLocked(who, format, args...)
}

// note prints an explanation that belongs to no service.
func (t *timeline) note(format string, args ...any) { t.say("", format, args...) }

// printLocked prints one line; t.mu is held.
func (t *timeline) printLocked(who, format string, args ...any) {
	elapsed := time.Since(t.start).Seconds()
	fmt.Fprintf(t.out, "+%6.3fs  %-9s %s\n", elapsed, who, fmt.Sprintf(format, args...))
}

// register records that the rlock client clientID belongs to service name.
func (t *timeline) register(name, clientID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names[clientID] = name
}

// nameOf returns the service behind a lock owner id, which rlock builds as
// "<client id>:<sequence>".
func (t *timeline) nameOf(owner string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if i := strings.LastIndexByte(owner, ':'); i >= 0 {
		if name, ok := t.names[owner[:i]]; ok {
			return name
		}
	}
	return owner
}

// unlocking prints that who releases the lock and notes the time, before
// the Unlock call, so that the line comes before the waiter's "woken".
func (t *timeline) unlocking(who, format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.printLocked(who, format, args...)
	t.lastUnlock, t.lastUnlocker = time.Now(), who
}

// handoff returns who began the latest Unlock and how long ago, if that was
// after since (when the caller started to wait).
func (t *timeline) handoff(since time.Time) (who string, ago time.Duration, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.lastUnlock.After(since) {
		return "", 0, false
	}
	return t.lastUnlocker, time.Since(t.lastUnlock), true
}
