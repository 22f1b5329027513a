package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// expirySlack is how long after the TTL it showed has run out watch reads
// a lock again: by then Redis has expired it, unless it was renewed.
const expirySlack = 5 * time.Millisecond

// clearScreen moves the cursor home and clears the terminal.
const clearScreen = "\x1b[H\x1b[2J"

// watchFrame is one redraw of watch, as --json prints it: one line each.
type watchFrame struct {
	Time   time.Time `json:"time"`
	Redraw int       `json:"redraw"` // 0 for the first view
	// Reason is what caused the redraw: "start", "message" (on Channel,
	// with Message), "ttl" (the TTL shown ran out) or "resubscribed" (after
	// a reconnect, which may have lost messages).
	Reason  string   `json:"reason"`
	Channel string   `json:"channel,omitempty"`
	Message string   `json:"message,omitempty"`
	Lock    lockView `json:"lock"`
}

// trigger is what caused a redraw.
type trigger struct {
	reason           string // as watchFrame.Reason
	channel, message string
}

// String says what caused the redraw, for the header of a text view.
func (t trigger) String() string {
	switch t.reason {
	case "message":
		return fmt.Sprintf("message %q on %s", t.message, t.channel)
	case "ttl":
		return "the TTL shown ran out"
	case "resubscribed":
		return "resubscribed after a reconnect: messages may have been lost"
	}
	return t.reason
}

// runWatch prints the lock args[0] as inspect does, then again at every
// message on its channels and once when the TTL it showed runs out, until
// Ctrl-C (or SIGTERM), --count redraws or --for. It subscribes before the
// first view, so that no release after it goes unseen.
func runWatch(ctx context.Context, s *session, args []string) error {
	name := args[0]
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if s.o.period > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.o.period)
		defer cancel()
	}
	err := s.watch(ctx, name)
	if ctx.Err() != nil {
		return nil // interrupted, or --for is over: the normal end
	}
	return err
}

// watch is runWatch until ctx ends.
func (s *session) watch(ctx context.Context, name string) error {
	sharded, err := s.sharded(ctx)
	if err != nil {
		return err
	}
	l, err := s.listen(ctx, name, sharded)
	if err != nil {
		return err
	}
	defer l.close()

	expiry := time.NewTimer(time.Hour)
	defer expiry.Stop()
	why := trigger{reason: "start"}
	for n := 0; ; n++ {
		v, err := s.view(ctx, name)
		if err != nil {
			return err
		}
		if err := s.draw(n, why, v); err != nil {
			return err
		}
		if n == s.o.count && n > 0 {
			return nil
		}
		expiry.Stop()
		if v.Held && v.TTLMillis > 0 {
			expiry.Reset(time.Duration(v.TTLMillis)*time.Millisecond + expirySlack)
		}
		if why, err = l.next(ctx, expiry.C); err != nil {
			return err
		}
	}
}

// draw prints redraw number n of the lock v, which why caused: a line
// with the time and the cause, then the lock as inspect shows it (on a
// terminal, on a cleared screen); with --json one line of JSON.
func (s *session) draw(n int, why trigger, v lockView) error {
	at := time.Now()
	var b bytes.Buffer
	if s.o.json {
		line, err := json.Marshal(watchFrame{Time: at, Redraw: n, Reason: why.reason, Channel: why.channel, Message: why.message, Lock: v})
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	} else {
		switch {
		case s.e.tty:
			b.WriteString(clearScreen)
		case n > 0:
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  redraw %d: %s\n", at.Format("2006-01-02 15:04:05.000"), n, why)
		writeLock(&b, v)
	}
	_, err := s.e.stdout.Write(b.Bytes())
	return err
}
