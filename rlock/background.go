package rlock

import "context"

// goBackground runs f in a goroutine that Close waits for, and reports
// whether it did: not once the Client is closed. f must return soon after
// Close begins (the Client's ctx ends).
func (c *Client) goBackground(f func()) bool {
	c.wireMu.Lock()
	defer c.wireMu.Unlock()
	if c.closed() {
		return false
	}
	c.background.Add(1)
	go func() {
		defer c.background.Done()
		f()
	}()
	return true
}

// inBackground runs f in a goroutine that Close waits for, with a ctx that
// ends after the unlock timeout or when Close begins; not at all once the
// Client is closed.
func (c *Client) inBackground(f func(ctx context.Context)) {
	c.goBackground(func() {
		ctx, cancel := context.WithTimeout(c.ctx, c.opts.unlockTimeout)
		defer cancel()
		f(ctx)
	})
}
