package proof;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static proof.History.outcome;

import java.time.Duration;
import java.util.Random;
import java.util.function.BooleanSupplier;

import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;

/**
 * One workload on one namespace: iterations one after another, each on the
 * object of the workload's current epoch, as the Go worker's loop. Redisson
 * has no Lost: a Java holder never learns that its lock lapsed, so it
 * records no "lost" and works its section to the end.
 */
final class Loop {
    static final long BACKOFF_MS = 100;
    private static final double READ_SHARE = 0.6;
    private static final int RELEASE_TRIES = 3;

    private final Worker w;
    private final String ns, wl;
    private final RedissonClient r;
    private final Random rng;
    private final long waitMs, holdMs, thinkMs;

    private final Unlocks unlocks = new Unlocks(this::invoke);
    private long epoch = -1;
    private String object;
    private String permitsSet;

    Loop(Worker w, String ns, String wl, long seed) {
        this.w = w;
        this.ns = ns;
        this.wl = wl;
        this.r = w.locks.get(ns);
        this.rng = new Random(seed);
        this.waitMs = w.millis("wait");
        this.holdMs = w.millis("hold");
        this.thinkMs = w.millis("think");
    }

    void run() {
        while (!w.stopping) {
            try {
                boolean ok;
                try {
                    follow();
                    ok = iterate();
                } catch (RuntimeException e) {
                    // The resource or a setup step failed: nothing was recorded as begun.
                    System.err.println("worker: " + ns + "/" + wl + ": " + e);
                    ok = false;
                }
                if (!ok) {
                    Thread.sleep(BACKOFF_MS);
                }
                Thread.sleep(between(thinkMs));
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /**
     * Runs iterations on this process's own warm-up object of the workload
     * until deadline (System.nanoTime), at least one: the JIT, connections
     * and subscriptions are ready before the process contends with others.
     */
    void warm(long deadline) {
        object = Store.warmup(ns, wl, w.flag("process"));
        do {
            try {
                if (!iterate()) {
                    Thread.sleep(BACKOFF_MS);
                }
                Thread.sleep(between(thinkMs));
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                System.err.println("worker: warm-up " + ns + "/" + wl + ": " + e);
                return;
            }
        } while (System.nanoTime() < deadline && !w.stopping);
    }

    private void follow() {
        long e = w.store.epoch(ns, wl);
        if (e != epoch) {
            epoch = e;
            object = Store.object(ns, wl, e);
        }
    }

    private boolean iterate() throws InterruptedException {
        return switch (wl) {
            case "fenced" -> fenced(false);
            case "election" -> fenced(true);
            case "plain" -> lock(r.getLock(object), "", true);
            case "fair" -> lock(r.getFairLock(object), "", false);
            case "rw" -> rw();
            case "semaphore" -> semaphore();
            case "pesemaphore" -> pesemaphore();
            case "latch", "rate" -> MoreWorkloads.iterate(w, r, wl, object, rng, waitMs);
            case "redlock" -> lock(RedLock.of(w, object), "", false);
            default -> throw new IllegalStateException("unknown workload " + wl);
        };
    }

    private long between(long ms) { return ms <= 0 ? 0 : (long) (rng.nextDouble() * (ms + 1)); }
    private void hold() throws InterruptedException { Thread.sleep(between(holdMs)); }
    /** Pauses inside a section the watchdog keeps: a long hold if one is free (Worker.workLong), else as hold. */
    private void work() throws InterruptedException { if (!w.workLong(rng)) hold(); }

    private History.Op invoke(String op, String mode, long v, long t) { return w.history.invoke(wl, object, op, mode, v, t); }

    // ------------------------------------------------------------ workloads

    /** fenced (RFencedLock), or election (RFencedLock on the election's name): fenced read, pause, write +1. */
    private boolean fenced(boolean election) throws InterruptedException {
        RFencedLock f = r.getFencedLock(object);
        History.Op o = invoke("acquire", null, 0, 0);
        Long token;
        try {
            token = f.tryLockAndGetToken(waitMs, MILLISECONDS);
        } catch (RuntimeException e) {
            o.info(e);
            unlocks.releaseIfHeld(f::unlock, held(f), null);
            return false;
        }
        if (token == null) {
            o.done("fail", outcome(0, 0, 0, "not acquired within the wait"));
            return false;
        }
        o.done("ok", outcome(0, token, 0, null));
        o = invoke("read", null, 0, token);
        try {
            long v = w.store.read(object, token);
            o.done("ok", outcome(v, token, 0, null));
            work();
            o = invoke("write", null, v + 1, token);
            if (w.store.write(object, token, v + 1)) {
                o.done("ok", outcome(v + 1, token, 0, null));
            } else {
                o.done("fail", outcome(v + 1, token, 0, "rejected: a later token was seen"));
            }
        } catch (RuntimeException e) {
            o.info(e);
        }
        unlocks.release(f::unlock, f::isHeldByCurrentThread, null);
        return true;
    }

    /** plain (RLock: GET, pause, SET +1) or fair (RFairLock: pause). */
    private boolean lock(RLock l, String mode, boolean increment) throws InterruptedException {
        if (!acquire(l, mode)) {
            return false;
        }
        if (increment) {
            increment(mode);
        } else {
            work();
        }
        unlocks.release(l::unlock, held(l), mode);
        return true;
    }

    /** Whether this thread holds l, or null for a Redlock, whose set cannot say. */
    private BooleanSupplier held(RLock l) {
        return wl.equals("redlock") ? null : l::isHeldByCurrentThread;
    }

    private boolean acquire(RLock l, String mode) throws InterruptedException {
        History.Op o = invoke("acquire", mode, 0, 0);
        String waiter = wl.equals("fair") ? w.queued.expect(r, object, o) : null;
        try {
            if (l.tryLock(waitMs, MILLISECONDS)) {
                o.done("ok", outcome(0, 0, 0, null));
                return true;
            }
            o.done("fail", outcome(0, 0, 0, "not acquired within the wait"));
        } catch (RuntimeException e) {
            o.info(e);
            unlocks.releaseIfHeld(l::unlock, held(l), mode);
        } finally {
            w.queued.forget(waiter);
        }
        return false;
    }

    /** Reads the plain register, pauses, writes it plus one. */
    private void increment(String mode) throws InterruptedException {
        Long v = read(mode);
        if (v == null) {
            return;
        }
        work();
        History.Op o = invoke("write", mode, v + 1, 0);
        try {
            w.store.set(object, v + 1);
            o.done("ok", outcome(v + 1, 0, 0, null));
        } catch (RuntimeException e) {
            o.info(e);
        }
    }

    private Long read(String mode) {
        History.Op o = invoke("read", mode, 0, 0);
        try {
            long v = w.store.get(object);
            o.done("ok", outcome(v, 0, 0, null));
            return v;
        } catch (RuntimeException e) {
            o.info(e);
            return null;
        }
    }

    /** rw (RReadWriteLock): readers read the plain register, writers increment it. */
    private boolean rw() throws InterruptedException {
        boolean reader = rng.nextDouble() < READ_SHARE;
        String mode = reader ? "read" : "write";
        RReadWriteLock rw = r.getReadWriteLock(object);
        RLock l = reader ? rw.readLock() : rw.writeLock();
        if (!acquire(l, mode)) {
            return false;
        }
        if (reader) {
            if (read(mode) != null) {
                work();
            }
        } else {
            increment(mode);
        }
        unlocks.release(l::unlock, held(l), mode);
        return true;
    }

    /** semaphore (RSemaphore): a permit, mark in, pause, mark out, release. */
    private boolean semaphore() throws InterruptedException {
        RSemaphore s = r.getSemaphore(object);
        if (!object.equals(permitsSet)) {
            s.trySetPermits(Integer.parseInt(w.flag("permits")));
            permitsSet = object;
        }
        History.Op o = invoke("acquire", null, 0, 0);
        try {
            if (!s.tryAcquire(1, Duration.ofMillis(waitMs))) {
                o.done("fail", outcome(0, 0, 0, "not acquired within the wait"));
                return false;
            }
        } catch (RuntimeException e) {
            o.info(e);
            return false;
        }
        o.done("ok", outcome(0, 0, 0, null));
        inside();
        // Sent once: a permit belongs to nobody, so a second release after
        // an error could give back one more than was taken.
        o = invoke("release", null, 0, 0);
        try {
            s.release();
            o.done("ok", outcome(0, 0, 0, null));
        } catch (RuntimeException e) {
            o.info(e);
        }
        return true;
    }

    /** pesemaphore (RPermitExpirableSemaphore): a leased permit, mark in, pause, mark out, release it. */
    private boolean pesemaphore() throws InterruptedException {
        RPermitExpirableSemaphore s = r.getPermitExpirableSemaphore(object);
        if (!object.equals(permitsSet)) {
            s.trySetPermits(Integer.parseInt(w.flag("permits")));
            permitsSet = object;
        }
        History.Op o = invoke("acquire", null, 0, 0);
        String id;
        try {
            id = s.tryAcquire(waitMs, w.millis("permit-lease"), MILLISECONDS);
        } catch (RuntimeException e) {
            o.info(e);
            return false;
        }
        if (id == null) {
            o.done("fail", outcome(0, 0, 0, "not acquired within the wait"));
            return false;
        }
        o.done("ok", outcome(0, 0, 0, null));
        inside();
        for (int i = 0; i < RELEASE_TRIES; i++) {
            if (i > 0) {
                Thread.sleep(BACKOFF_MS);
            }
            o = invoke("release", null, 0, 0);
            try {
                if (s.tryRelease(id)) {
                    o.done("ok", outcome(0, 0, 0, null));
                } else {
                    o.done("fail", outcome(0, 0, 0, "permit not leased any more"));
                }
                break;
            } catch (RuntimeException e) {
                o.info(e);
            }
        }
        return true;
    }

    /** Marks in, pauses, marks out. */
    private void inside() throws InterruptedException {
        History.Op o = invoke("enter", null, 0, 0);
        try {
            o.done("ok", outcome(0, 0, w.store.enter(object), null));
        } catch (RuntimeException e) {
            o.info(e);
            return;
        }
        hold();
        o = invoke("leave", null, 0, 0);
        try {
            o.done("ok", outcome(0, 0, w.store.leave(object), null));
        } catch (RuntimeException e) {
            o.info(e);
        }
    }
}
