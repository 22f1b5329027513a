package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Proxy forwards TCP connections from a loopback port to a target address,
// with faults that can be switched at run time. Its methods are safe for
// concurrent use.
type Proxy struct {
	target string
	ln     net.Listener
	ctx    context.Context // cancelled by Close; bounds dials to the target
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the proxy starts

	mu        sync.Mutex
	links     map[*link]struct{}
	closed    bool
	latency   time.Duration
	blackHole bool
	// flow is closed while no stall holds chunks back; Stall(true)
	// replaces it with an open one, Stall(false) closes it.
	flow        chan struct{}
	refuseNew   bool
	dropReplies int
	// dropWith: drop the requests that contain it, upper-cased (nil:
	// none).
	dropWith []byte
}

// Start listens on 127.0.0.1 on a free port and forwards every connection
// accepted there to target (host:port), with no fault switched on. The
// target is dialled once per connection, when its first bytes are to be
// forwarded; if that dial fails the client connection is closed.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	flow := make(chan struct{})
	close(flow)
	p := &Proxy{target: target, ln: ln, ctx: ctx, cancel: cancel, links: make(map[*link]struct{}), flow: flow}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the host:port clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Target returns the host:port the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Close stops accepting, closes every connection on both sides and returns
// once every goroutine of the proxy has exited. Later calls do nothing and
// return nil.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	links := p.snapshot()
	p.mu.Unlock()

	p.cancel()
	err := p.ln.Close()
	for _, l := range links {
		l.close(false)
	}
	p.wg.Wait()
	return err
}

// SetLatency delays every chunk read from then on, in either direction, by
// d before it is written on (0: no delay). Chunks keep their order.
func (p *Proxy) SetLatency(d time.Duration) {
	p.mu.Lock()
	p.latency = max(d, 0)
	p.mu.Unlock()
}

// BlackHole(true) makes the proxy drop every chunk in both directions, on
// open and new connections, while still accepting and reading them, so
// that clients hear nothing and nothing is closed. BlackHole(false)
// forwards again; what was dropped meanwhile is lost.
func (p *Proxy) BlackHole(on bool) {
	p.mu.Lock()
	p.blackHole = on
	p.mu.Unlock()
}

// Stall(true) holds back every chunk in both directions, on open and new
// connections, as a network partition does to TCP streams: connections are
// still accepted and read, so the client's writes succeed, and nothing is
// answered or closed. Stall(false) heals it: every chunk held is written
// on, in order, as TCP's retransmissions would deliver it, a command sent
// meanwhile reaching Redis late, even from a client that gave up on the
// connection and closed it. Unlike a black hole, no stream loses a byte:
// a client never falls out of step with Redis.
func (p *Proxy) Stall(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.flow:
		if on {
			p.flow = make(chan struct{})
		}
	default:
		if !on {
			close(p.flow)
		}
	}
}

// flowing returns a channel that is closed once no stall holds chunks back.
func (p *Proxy) flowing() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.flow
}

// DropReplies makes the proxy drop the next n chunks it reads from the
// target, on any connection, instead of forwarding them to the client,
// replacing any count left from an earlier call (0 cancels it). Requests
// are still forwarded. See the package doc for what a chunk holds.
func (p *Proxy) DropReplies(n int) {
	p.mu.Lock()
	p.dropReplies = max(n, 0)
	p.mu.Unlock()
}

// DropRequests makes the proxy drop every chunk it reads from a client
// that contains s, ignoring case ("SUBSCRIBE": no subscription reaches
// Redis), until DropRequests(""). Other chunks are forwarded. See the
// package doc for what a chunk holds: a client that pipelines sends other
// commands in the same chunk, and they are dropped too.
func (p *Proxy) DropRequests(s string) {
	p.mu.Lock()
	p.dropWith = nil
	if s != "" {
		p.dropWith = bytes.ToUpper([]byte(s))
	}
	p.mu.Unlock()
}

// ResetAll aborts every open connection with a TCP RST to the client and a
// close towards the target. When it returns, Conns no longer counts them.
// New connections are accepted as before.
func (p *Proxy) ResetAll() {
	p.mu.Lock()
	links := p.snapshot()
	p.mu.Unlock()
	for _, l := range links {
		l.close(true)
	}
}

// RefuseNew(true) makes the proxy close every new connection with a TCP
// RST as soon as it is accepted, until RefuseNew(false). Open connections
// are not affected.
func (p *Proxy) RefuseNew(on bool) {
	p.mu.Lock()
	p.refuseNew = on
	p.mu.Unlock()
}

// Conns returns the number of client connections currently open through
// the proxy.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.links)
}

// snapshot returns the open links; p.mu must be held.
func (p *Proxy) snapshot() []*link {
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	return links
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			// Out of file descriptors or a similar passing failure: let it
			// pass rather than stop serving.
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		p.serve(c.(*net.TCPConn))
	}
}

// serve registers a newly accepted client connection and starts forwarding
// its bytes, or resets it if the proxy refuses new connections or is closed.
func (p *Proxy) serve(c *net.TCPConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.refuseNew {
		_ = c.SetLinger(0)
		_ = c.Close()
		return
	}
	l := &link{p: p, client: c, done: make(chan struct{})}
	p.links[l] = struct{}{}
	l.start(c, l.upstream, false)
}

// admit decides the fate of a chunk just read: it returns the chunk to
// queue, with its due time, or false if a fault drops it.
func (p *Proxy) admit(b []byte, fromTarget bool) (chunk, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blackHole {
		return chunk{}, false
	}
	if fromTarget && p.dropReplies > 0 {
		p.dropReplies--
		return chunk{}, false
	}
	if !fromTarget && p.dropWith != nil && bytes.Contains(bytes.ToUpper(b), p.dropWith) {
		return chunk{}, false
	}
	return chunk{data: append([]byte(nil), b...), due: time.Now().Add(p.latency)}, true
}

func (p *Proxy) blackHoled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.blackHole
}
