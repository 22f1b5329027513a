package rlock

import (
	"context"
	"errors"
	"log/slog"
)

// WithLogger logs the Client's events to l: lost locks, failed renewals
// and replaced subscriptions at Warn; every other event at Debug, so a
// handler at the usual Info level logs only what needs attention. A Client
// logs nothing without it.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("WithLogger: nil Logger")
		}
		o.observers = append(o.observers, logObserver{l})
		return nil
	}
}

// logObserver writes events to a slog.Logger.
type logObserver struct{ l *slog.Logger }

func (lo logObserver) ObserveLock(e Event) {
	level := slog.LevelDebug
	msg := "relock: " + e.Type.String()
	switch e.Type {
	case EventLost:
		level, msg = slog.LevelWarn, "relock: lock lost"
	case EventRenewalFailed:
		level, msg = slog.LevelWarn, "relock: watchdog renewal failed"
	case EventSubscriptionReplaced:
		level, msg = slog.LevelWarn, "relock: subscription connection replaced"
	}
	ctx := context.Background()
	if !lo.l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 8)
	if e.Name != "" {
		attrs = append(attrs, slog.String("lock", e.Name), slog.String("kind", string(e.Kind)))
		if e.Mode != "" {
			attrs = append(attrs, slog.String("mode", e.Mode))
		}
		attrs = append(attrs, slog.String("owner", e.Owner))
	}
	switch e.Type {
	case EventWaitStarted, EventWoken, EventAcquired, EventNotAcquired:
		attrs = append(attrs, slog.Duration("wait", e.Wait), slog.Int("attempts", e.Attempts), slog.Int("wakeups", e.Wakeups))
	case EventReleased, EventLost:
		attrs = append(attrs, slog.Int("count", e.Count), slog.Duration("held", e.Held))
	case EventRenewed, EventRenewalFailed:
		attrs = append(attrs, slog.Int("locks", e.Count), slog.Duration("latency", e.Latency))
	case EventSubscriptionReplaced:
		attrs = append(attrs, slog.Int("channels", e.Count))
	}
	if e.Err != nil {
		attrs = append(attrs, slog.String("error", e.Err.Error()))
	}
	lo.l.LogAttrs(ctx, level, msg, attrs...)
}
