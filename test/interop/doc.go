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
//
// Peers are JVMs, and their start-up is most of the package's cost: a
// peer starts from a class-data archive of the jar, made on first use and
// kept in the user's cache directory, which halves its CPU time. Each test
// has a redis-server of its own and runs in parallel with the others,
// except those that compare Go's and Java's wait times and turns. The
// fair-queue tests of 20 trials run them in batches: the batch's Java
// waiters start first (--await-stdin, two JVMs at a time), then its trials
// run together, each on its own lock and proxy, while no JVM starts, so
// that a peer that must answer within a grace is not starved of the CPU.
//
// Like every package under test/, it exists for relock's own tests and
// makes no compatibility promise: its API changes as the tests need.
package interop
