package interop

import "testing"

// Two Java threads and two goroutines of one Client share a semaphore of
// one permit. The Client takes turns with the Java side as at a lock's
// releases: once its release is heard by a Java waiter, its own woken
// waiter retries after a step-aside, and a new acquisition of its own
// right after the release waits it out, so that the Java thread woken by
// the release takes the permit first. Java has the permit within a few Go
// acquisitions of its first wait, then seldom waits through more than a
// few in a row, and its wait p99 is within 4x the goroutines' (checkTurns;
// 51 acquisitions per thread, so that the JVM's p99 leaves out the cold
// first ones).
func TestSemaphoreSharedWithJavaFromItsFirstWait(t *testing.T) {
	rdb, c := setup(t)
	m := mix{kind: "semaphore", jvms: 1, threads: 2, goroutines: 2, rounds: 51}.run(t, rdb, c, "sem-share-first")
	t.Log(m)
	checkTurns(t, m, 4)
}

// One goroutine shares a semaphore of one permit with two Java threads:
// with no other waiter of its Client to pass the permit to, the goroutine
// acquires again right after each release, and would take the permit back
// before the Java thread the release woke could retry. Its acquisition
// waits out the step-aside instead (countTurn.enter), so the Java side
// has its turns as in the test above (checkTurns).
func TestSemaphoreLoneGoroutineLetsJavaGoFirst(t *testing.T) {
	rdb, c := setup(t)
	m := mix{kind: "semaphore", jvms: 1, threads: 2, goroutines: 1, rounds: 51}.run(t, rdb, c, "sem-share-lone")
	t.Log(m)
	checkTurns(t, m, 4)
}
