// Package chaos runs relock's locks against a real redis-server through
// fault-injecting proxies (package faultproxy) and checks that they keep
// the promise the library makes, which is narrower than "never two
// holders": a lease-based lock cannot stop a holder that lost its lease
// from running on, but it must tell it so. The package's tests inject one
// fault at a time; Run drives a long, mixed workload for the tests and for
// the soak command (test/cmd/soak).
//
// # What the checker proves
//
// Every critical section is recorded by its holder (Hold) with stamps from
// one atomic counter, a total order of events consistent with real time in
// the process. A holder works in steps; before each step it takes a stamp
// and then checks its hold's Lost channel. A stamp followed by a check
// that found Lost open is a moment the holder was entitled to the lock:
// Lost closes no later than Redis expires the lock, so the lock was still
// its own then. The section's valid interval runs from its first stamp to
// its last such stamp; a holder that finds Lost closed stops at once, as
// the package rlock documentation tells users to. Check then proves, per
// lock name:
//
//   - exclusion: no two valid intervals overlap;
//   - token order: fencing tokens are distinct, and valid sections, in the
//     order they started, hold strictly growing tokens;
//   - fencing: each step writes its token to a Store that accepts a write
//     only if no higher token was accepted before; a write that the Store
//     rejects while the writer's Lost is still open is a violation (a
//     higher token was granted, so the writer's hold had ended, and Lost
//     should have told it);
//   - truthful unlock: an Unlock that reports rlock.ErrNotHeld comes with
//     Lost closed.
//
// Sections whose Lost fired are expected and counted, not violations: they
// are what a lease-based lock does under faults. The proof relies on Redis
// keeping the lock's writes: a restart without persistence, or a failover
// that loses writes, voids it (and resets the token counter), so Run never
// injects those.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package chaos
