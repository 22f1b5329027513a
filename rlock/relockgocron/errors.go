package relockgocron

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/relock-go/relock/rlock"
)

var (
	// ErrNotLeader is the cause of Elector.IsLeader's error while this
	// Elector does not lead (it campaigns, or its term's lease is not known
	// good); gocron then skips the run.
	ErrNotLeader = errors.New("relockgocron: not the leader")
	// ErrRunning is the cause of Locker.Lock's error when a run of the job
	// holds the job's lock (in this process or another): gocron skips the
	// tick.
	ErrRunning = errors.New("relockgocron: a run of the job holds its lock")
	// ErrTickClaimed is the cause of Locker.Lock's error when another run
	// started less than the claim before (see Locker): that run was this
	// tick's, fired earlier by another scheduler, and gocron skips it here.
	ErrTickClaimed = errors.New("relockgocron: the tick was run by another scheduler")
)

// checkName returns why rlock would refuse name as a lock's name (an error
// wrapping rlock.ErrInvalidName), or rlock.ErrClosed when c is closed. rlock
// checks a name when its lock is first used: Extend on a handle that holds
// nothing checks the name and the Client, then finds the hold absent
// (rlock.ErrNotHeld) without sending a command.
func checkName(c *rlock.Client, name string) error {
	err := c.NewMutex(name).Extend(context.Background(), time.Second)
	if errors.Is(err, rlock.ErrNotHeld) {
		return nil
	}
	return err
}

// checkDuration returns an error wrapping rlock.ErrInvalidDuration for
// what (an option's name) when d is below min.
func checkDuration(what string, d, min time.Duration) error {
	if d < min {
		return fmt.Errorf("%s(%v): %w: must be at least %v", what, d, rlock.ErrInvalidDuration, min)
	}
	return nil
}
