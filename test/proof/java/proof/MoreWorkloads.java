package proof;

import java.util.Random;

import org.redisson.api.RedissonClient;

/** The workloads beyond Loop's locks and semaphores: latch and rate, each one iteration on object. */
final class MoreWorkloads {
    private MoreWorkloads() {}

    /** One iteration of workload wl on object, with r the namespace's client; false when it took nothing. */
    static boolean iterate(Worker w, RedissonClient r, String wl, String object, Random rng, long waitMs)
            throws InterruptedException {
        return switch (wl) {
            case "latch" -> new Latch(w, r, wl, object, waitMs).iterate();
            case "rate" -> Rate.iterate(w, r.getRateLimiter(object), wl, object, rng);
            default -> throw new IllegalStateException("unknown workload " + wl);
        };
    }
}
