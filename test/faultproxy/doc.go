// Package faultproxy is a TCP proxy that tests put between a Redis client
// and a real redis-server to inject network faults, switched at run time.
//
//	p, err := faultproxy.Start(srv.Addr) // listens on 127.0.0.1:<free port>
//	defer p.Close()
//	rdb := redis.NewClient(&redis.Options{Addr: p.Addr()})
//	p.BlackHole(true) // from now on rdb's commands time out
//
// # Forwarding
//
// Each accepted client connection gets its own connection to the target,
// dialled when the first bytes are to be forwarded to it (Redis never
// speaks first, so a client that sends nothing costs the target nothing,
// and a black-holed client never reaches it). Bytes travel as chunks: a
// chunk is what one Read returned on one side, at most 32 KiB. Each
// direction has a reader, which reads a chunk, applies the faults decided
// on arrival and queues it, and a writer, which waits for the chunk's due
// time, checks the black hole again and writes the chunk whole. A writer
// writes the chunks of its direction in the order they were read, so with
// no fault switched on the proxy only adds scheduling delay. When a side
// ends or fails, what was already read from it is still delivered to the
// other side, then both connections are closed (a client that half-closes
// its connection gets no further replies).
//
// # Faults
//
// Faults apply to existing and new connections alike from the moment they
// are switched, and combine.
//
//   - SetLatency(d): every chunk read from then on is written d after it
//     was read, in both directions, so a request/reply round trip takes at
//     least 2d. Order is kept: a chunk never overtakes one read before it,
//     even when d is lowered. The client sees a slow Redis; commands time
//     out if 2d exceeds its read timeout.
//
//   - BlackHole(true): connections are still accepted and read, so the
//     client's writes succeed, but every chunk, in either direction, is
//     dropped: read while the hole is open, or due for writing while it is.
//     Nothing is answered and nothing is closed. The client sees a Redis
//     that accepts the TCP connection and never replies: every read, the
//     handshake of a new connection included, ends in its read timeout.
//     After BlackHole(false) bytes flow again, but a connection that lost
//     bytes mid-command is out of step with Redis (a half-sent request is a
//     protocol error for Redis; a dropped reply leaves the client one reply
//     behind); go-redis discards a connection after a timeout, so its next
//     command goes on a fresh connection.
//
//   - Stall(true): a network partition as TCP meets it. Connections are
//     still accepted and read, and nothing is answered or closed, as in a
//     black hole, but every chunk is held, not dropped: after Stall(false)
//     each is written on, in order, as retransmissions would deliver it.
//     A command sent during the stall reaches Redis late, even from a
//     client that gave up and closed the connection (as a kernel still
//     sends what was written before a close); a client that kept waiting
//     reads its replies late, in step with Redis. Clients that cannot
//     resynchronise a stream (Redisson matches replies to commands by
//     order) meet what a real partition does to them, not a stream that
//     lost bytes.
//
//   - DropReplies(n): the next n chunks read from the target, on any
//     connection, are dropped instead of being forwarded to the client.
//     Requests still reach Redis. The granularity is a Read from Redis's
//     socket, not a RESP reply: one chunk may hold several pipelined
//     replies, and a reply larger than a chunk spans several (dropping one
//     of those leaves the client a corrupt stream). A small reply (a
//     status, an integer, a short string) to the only command outstanding
//     on its connection is written by Redis in one call and, on loopback,
//     read as exactly one chunk. Dropping it is a lost reply: the command
//     ran, and the client, which never hears back, ends in its read
//     timeout and cannot tell whether the command ran.
//
//   - DropRequests(s): every chunk read from a client from then on that
//     contains s, ignoring case, is dropped (DropRequests("") ends it);
//     the others are forwarded. DropRequests("SUBSCRIBE") keeps a
//     client's subscriptions from reaching Redis while its other commands
//     run: the client waits for a confirmation that never comes. A
//     chunk of pipelined commands is dropped whole.
//
//   - ResetAll(): every open connection is aborted now: the client socket
//     is closed with SO_LINGER 0, so the kernel sends a TCP RST, and the
//     connection to Redis is closed. Queued chunks are discarded. The
//     client's next read or write on that connection fails with
//     "connection reset by peer" (or EOF if it already read the reset); a
//     pub/sub Receive blocked on it returns that error. go-redis's pool may
//     also notice the reset while the connection is idle and silently
//     replace it. New connections are still accepted.
//
//   - RefuseNew(true): every new connection is accepted and at once closed
//     with a RST, until RefuseNew(false); open connections are untouched.
//     The client's dial succeeds (the kernel completes the TCP handshake
//     before the proxy sees the connection) but its first command, the
//     go-redis connection handshake included, fails with a reset (or EOF)
//     rather than a timeout, as if Redis were down.
//
// The proxy listens on loopback only and is meant for tests. Each
// direction queues at most 64 chunks; a full queue stops its reader until
// the writer catches up, so a peer that reads slowly slows the other side
// down as it would over a direct connection.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package faultproxy
