package proof;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static proof.History.outcome;

import java.util.function.BooleanSupplier;

/**
 * How a loop lets go of a lock it took, each unlock recorded in its
 * history: until the thread holds it no more, as far as Redis can say.
 * A Redisson hold can be counted once more than the thread took it: a
 * lock script that Redisson timed out and Redis ran after all leaves the
 * thread holding the lock unwatched, and its next lock() re-enters it; a
 * failover that lost an unlock brings the hold back. One unlock then
 * leaves the lock held, the thread's next acquisition re-enters it, skips
 * the fair queue and keeps it, and so on for as long as the thread locks
 * again within a lease of each unlock: everyone else waits.
 */
final class Unlocks {
    /**
     * How long an unlock without an answer is sent again: longer than any
     * fault of the proof keeps Redis from answering (a restart, Redisson's
     * reconnection after it, an election), since a hold left behind is
     * re-entered as above.
     */
    private static final long RELEASE_WITHIN_MS = 30_000;
    /** The most unlocks one release sends to let go of a hold counted more than once. */
    private static final int RELEASE_HOLDS = 8;

    /** Records an operation of the loop on its current object. */
    interface Recorder {
        History.Op invoke(String op, String mode, long v, long t);
    }

    private final Recorder history;

    Unlocks(Recorder history) { this.history = history; }

    /**
     * Unlocks, then unlocks again while held (null: the lock cannot say)
     * reports that this thread still holds the lock.
     */
    void release(Runnable unlock, BooleanSupplier held, String mode) throws InterruptedException {
        for (int i = 0; i < RELEASE_HOLDS && unlockOnce(unlock, mode) && held != null; i++) {
            if (!holds(held)) {
                return;
            }
        }
    }

    /** Releases the lock if an acquisition that ended in doubt took it after all. */
    void releaseIfHeld(Runnable unlock, BooleanSupplier held, String mode) throws InterruptedException {
        if (held != null && holds(held)) {
            release(unlock, held, mode);
        }
    }

    /**
     * Whether held says the thread holds the lock; false when Redis cannot
     * be asked: the hold's lease runs out, or the next release asks again.
     */
    private static boolean holds(BooleanSupplier held) {
        try {
            return held.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Sends one unlock: ok (it returns true); fail when not held
     * (IllegalMonitorStateException); info on another error, after which
     * the unlock is sent again, until its outcome is known or
     * RELEASE_WITHIN_MS has passed.
     */
    private boolean unlockOnce(Runnable unlock, String mode) throws InterruptedException {
        long until = System.nanoTime() + MILLISECONDS.toNanos(RELEASE_WITHIN_MS);
        for (int i = 0; i == 0 || System.nanoTime() < until; i++) {
            if (i > 0) {
                Thread.sleep(Loop.BACKOFF_MS);
            }
            History.Op o = history.invoke("release", mode, 0, 0);
            try {
                unlock.run();
                o.done("ok", outcome(0, 0, 0, null));
                return true;
            } catch (IllegalMonitorStateException e) {
                o.done("fail", outcome(0, 0, 0, e.toString()));
                return false;
            } catch (RuntimeException e) {
                o.info(e);
            }
        }
        return false;
    }
}
