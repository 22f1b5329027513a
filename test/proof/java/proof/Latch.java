package proof;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.NANOSECONDS;
import static proof.History.outcome;

import org.redisson.api.RCountDownLatch;
import org.redisson.api.RedissonClient;

/**
 * The latch workload's part of one iteration, as the Go worker's latch: a
 * ticket of the object's rounds gives the thread its part in a round of a
 * count-down latch (the Go package store's rounds, whose constants these
 * are), every operation recorded with the round as its token.
 */
final class Latch {
    /** Each round's count: store.LatchCount. */
    static final int COUNT = 2;
    /** The parts of a round: store.LatchRound. */
    static final int ROUND = 1 + COUNT + 3;
    private static final long OPEN_POLL_MS = 20;

    private final Worker w;
    private final RedissonClient r;
    private final String wl, object;
    private final long waitMs;

    Latch(Worker w, RedissonClient r, String wl, String object, long waitMs) {
        this.w = w;
        this.r = r;
        this.wl = wl;
        this.object = object;
        this.waitMs = waitMs;
    }

    /** Takes a part in a round; false when nothing was taken or awaited. */
    boolean iterate() throws InterruptedException {
        long t = w.store.ticket(object);
        long round = (t - 1) / ROUND, part = (t - 1) % ROUND;
        RCountDownLatch latch = r.getCountDownLatch(object + ":" + round);
        if (part == 0) {
            History.Op o = w.history.invoke(wl, object, "write", null, COUNT, round);
            try {
                if (!latch.trySetCount(COUNT)) {
                    o.done("fail", outcome(0, 0, 0, "the latch had a count"));
                    return false;
                }
            } catch (RuntimeException e) {
                o.info(e);
                return false;
            }
            o.done("ok", outcome(0, 0, 0, null));
            w.store.open(object, round);
        } else if (!awaitOpen(round)) {
            return false;
        } else if (part <= COUNT) {
            History.Op o = w.history.invoke(wl, object, "release", null, 0, round);
            try {
                latch.countDown();
                o.done("ok", outcome(0, 0, 0, null));
            } catch (RuntimeException e) {
                o.info(e);
            }
            return true;
        }
        History.Op o = w.history.invoke(wl, object, "acquire", null, 0, round);
        try {
            if (await(latch)) {
                o.done("ok", outcome(0, 0, 0, null));
                return true;
            }
            o.done("fail", outcome(0, 0, 0, "the count was not zero within the wait"));
        } catch (RuntimeException e) {
            o.info(e);
        }
        return false;
    }

    /**
     * Awaits the latch for the acquisitions' wait in slices of a lease,
     * each reading the count first, as relock's waiters do: Redisson 3.52's
     * sharded subscriptions miss messages for good after a Cluster's slot
     * migration, and its await never reads the count again on its own.
     */
    private boolean await(RCountDownLatch latch) throws InterruptedException {
        long end = System.nanoTime() + MILLISECONDS.toNanos(waitMs);
        long lease = w.millis("lease");
        while (true) {
            long left = NANOSECONDS.toMillis(end - System.nanoTime());
            if (latch.await(Math.max(0, Math.min(lease, left)), MILLISECONDS)) {
                return true;
            }
            if (left <= lease) {
                return false;
            }
        }
    }

    /** Waits, at most the acquisitions' wait, until the round has begun. */
    private boolean awaitOpen(long round) throws InterruptedException {
        long deadline = System.nanoTime() + MILLISECONDS.toNanos(waitMs);
        while (!w.store.isOpen(object, round)) {
            if (System.nanoTime() > deadline || w.stopping) {
                return false;
            }
            Thread.sleep(OPEN_POLL_MS);
        }
        return true;
    }
}
