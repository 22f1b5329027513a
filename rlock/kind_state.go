package rlock

// kindState is the state one kind keeps in every Client (its waiters'
// registry, its lines, its terms): declared in the kind's file, which
// registers it once (newKindState), made by New for each Client, and found
// from the Client (in). So the Client holds each kind's state without
// naming it.
type kindState[T any] struct{ i int }

// kindStates make each registered kind's state for a new Client, in the
// order registered: kindState.i indexes them, and Client.states.
var kindStates []func(*Client) any

// newKindState registers a kind's state, which make makes for each new
// Client. Called once per state, in a package variable's initialisation.
func newKindState[T any](make func(*Client) *T) kindState[T] {
	kindStates = append(kindStates, func(c *Client) any { return make(c) })
	return kindState[T]{i: len(kindStates) - 1}
}

// in is the state of the Client c.
func (s kindState[T]) in(c *Client) *T { return c.states[s.i].(*T) }

// closing is a kind's state that acts when its Client closes: Close calls
// it first, before anything of the Client stops (an election's terms end
// and release their locks).
type closing interface{ clientClosing() }

// makeStates makes every registered kind's state for c (New).
func (c *Client) makeStates() {
	c.states = make([]any, len(kindStates))
	for i, make := range kindStates {
		c.states[i] = make(c)
	}
}

// closeStates tells each kind's state that acts at Close that c closes,
// one after another.
func (c *Client) closeStates() {
	for _, s := range c.states {
		if cl, ok := s.(closing); ok {
			cl.clientClosing()
		}
	}
}
