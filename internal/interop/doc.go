// Package interop runs relock beside a real Redisson client on one
// redis-server, so that its tests prove wire compatibility: the same keys,
// fields, channels and messages, mutual exclusion across the two, and
// wake-ups by pub/sub in both directions.
//
// The Redisson side is the test peer in ../shared/interop beside the
// repository (redisson-peer.jar, Redisson 3.52, Java 17): a command-line
// program that drives real Redisson and reports what it did as JSON lines.
// Start runs it; RELOCK_REDISSON_PEER names another jar. Where java or the
// jar is missing the tests skip with one line, except under CI, where they
// fail: CI installs Java and must run them.
package interop
