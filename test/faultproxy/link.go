package faultproxy

import (
	"net"
	"sync"
	"time"
)

// link is one client connection and, once dialled, its connection to the
// target.
type link struct {
	p      *Proxy
	client *net.TCPConn
	done   chan struct{} // closed when the link is torn down
	once   sync.Once

	mu     sync.Mutex // guards target against close
	target net.Conn   // nil until the first chunk is due towards the target
}

// chunk is the data of one Read, to be written at due.
type chunk struct {
	data []byte
	due  time.Time
}

// queueLen bounds the chunks waiting in one direction; a full queue stops
// its reader until the writer catches up.
const queueLen = 64

// start forwards what is read from src to the connection dst returns, with
// one reader and one writer goroutine.
func (l *link) start(src net.Conn, dst func() (net.Conn, error), fromTarget bool) {
	q := make(chan chunk, queueLen)
	l.p.wg.Add(2)
	go l.read(src, q, fromTarget)
	go l.write(q, dst)
}

// read queues the chunks the proxy admits until src fails or ends, or the
// link is torn down.
func (l *link) read(src net.Conn, q chan<- chunk, fromTarget bool) {
	defer l.p.wg.Done()
	defer close(q)
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if c, ok := l.p.admit(buf[:n], fromTarget); ok {
				select {
				case q <- c:
				case <-l.done:
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// write writes each queued chunk at its due time, or once a stall that
// holds it back ends, unless the black hole is open then. Once the queue
// is drained after its reader ended, or a write fails, it tears the link
// down.
func (l *link) write(q <-chan chunk, dst func() (net.Conn, error)) {
	defer l.p.wg.Done()
	defer l.close(false)
	for {
		var c chunk
		var ok bool
		select {
		case c, ok = <-q:
			if !ok {
				return
			}
		case <-l.done:
			return
		}
		if wait := time.Until(c.due); wait > 0 {
			select {
			case <-time.After(wait):
			case <-l.done:
				return
			}
		}
		select {
		case <-l.p.flowing():
		case <-l.done:
			return
		}
		if l.p.blackHoled() {
			continue
		}
		w, err := dst()
		if err != nil {
			return
		}
		if _, err := w.Write(c.data); err != nil {
			return
		}
	}
}

// upstream returns the connection to the target, dialling it and starting
// the target-to-client direction on first use. Only the client-to-target
// writer calls it, so it alone sets l.target.
func (l *link) upstream() (net.Conn, error) {
	if l.target != nil {
		return l.target, nil
	}
	var d net.Dialer
	t, err := d.DialContext(l.p.ctx, "tcp", l.p.target)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.done:
		_ = t.Close()
		return nil, net.ErrClosed
	default:
	}
	l.target = t
	l.start(t, l.downstream, true)
	return t, nil
}

// downstream returns the client connection, where replies go.
func (l *link) downstream() (net.Conn, error) { return l.client, nil }

// close tears the link down once: it closes the client connection, with a
// RST if reset is set, and the target connection, and stops counting it.
func (l *link) close(reset bool) {
	l.once.Do(func() {
		if reset {
			_ = l.client.SetLinger(0)
		}
		_ = l.client.Close()
		l.mu.Lock()
		close(l.done)
		if l.target != nil {
			_ = l.target.Close()
		}
		l.mu.Unlock()
		l.p.mu.Lock()
		delete(l.p.links, l)
		l.p.mu.Unlock()
	})
}
