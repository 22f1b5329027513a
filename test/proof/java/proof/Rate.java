package proof;

import static proof.History.outcome;

import java.time.Duration;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;

/**
 * The rate limiter workload's iteration, as the Go worker's rate: one or
 * two permits of the object's RRateLimiter, at once (tryAcquire(n)) or
 * waiting up to an interval (tryAcquire(n, timeout)), recorded as an
 * acquire whose value is the permits.
 */
final class Rate {
    /** store.RateLimit per store.RateInterval. */
    static final long LIMIT = 4;
    static final Duration INTERVAL = Duration.ofMillis(500);
    private static final double WAIT_SHARE = 1.0 / 3;
    /** The limiters whose rate this process has set (or found set). */
    private static final Set<String> SET = ConcurrentHashMap.newKeySet();

    private Rate() {}

    /** One iteration, false unless granted; the rate is set first, once, by whoever finds none. */
    static boolean iterate(Worker w, RRateLimiter rl, String wl, String object, Random rng) {
        if (!SET.contains(object)) {
            rl.trySetRate(RateType.OVERALL, LIMIT, INTERVAL);
            SET.add(object);
        }
        long n = 1 + rng.nextInt(2);
        History.Op o = w.history.invoke(wl, object, "acquire", null, n, 0);
        try {
            boolean ok = rng.nextDouble() < WAIT_SHARE ? rl.tryAcquire(n, INTERVAL) : rl.tryAcquire(n);
            if (ok) {
                o.done("ok", outcome(0, 0, 0, null));
            } else {
                o.done("fail", outcome(0, 0, 0, "no permits"));
            }
            return ok; // turned away: the loop backs off
        } catch (RuntimeException e) {
            o.info(e);
            return false;
        }
    }
}
