package proof;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static proof.History.outcome;

import java.util.ArrayList;
import java.util.List;

import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The redlock workload, as the Go worker's: a RedissonRedLock over an RLock
 * of the object's name on each of the three redlock servers (through this
 * process's proxies, --redlock), held with the members' watchdogs: take
 * it, pause, release.
 */
final class RedLock {
    private RedLock() {}

    /** A client of each redlock server, as the Go worker's: short timeouts, one retry. */
    static List<RedissonClient> clients(Worker w) {
        List<RedissonClient> out = new ArrayList<>();
        for (String addr : Worker.split(w.flag("redlock"))) {
            Config c = new Config();
            c.setThreads(2);
            c.setNettyThreads(2);
            c.setLockWatchdogTimeout(w.millis("lease"));
            c.useSingleServer().setAddress("redis://" + addr).setTimeout(1000).setConnectTimeout(1000)
                    .setRetryAttempts(1).setConnectionMinimumIdleSize(1).setConnectionPoolSize(4)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2);
            out.add(Redisson.create(c));
        }
        return out;
    }

    /** One iteration on object; false when the lock was not taken. RedissonRedLock is deprecated, and the subject. */
    @SuppressWarnings("deprecation")
    static boolean iterate(Worker w, String wl, String object, long waitMs, long holdMs) throws InterruptedException {
        List<RLock> members = new ArrayList<>();
        for (RedissonClient c : w.redlock) {
            members.add(c.getLock(object));
        }
        RedissonRedLock l = new RedissonRedLock(members.toArray(new RLock[0]));
        History.Op o = w.history.invoke(wl, object, "acquire", null, 0, 0);
        try {
            if (!l.tryLock(waitMs, MILLISECONDS)) {
                o.done("fail", outcome(0, 0, 0, "not acquired within the wait"));
                return false;
            }
        } catch (RuntimeException e) {
            o.info(e);
            return false;
        }
        o.done("ok", outcome(0, 0, 0, null));
        Thread.sleep(holdMs);
        o = w.history.invoke(wl, object, "release", null, 0, 0);
        try {
            l.unlock();
            o.done("ok", outcome(0, 0, 0, null));
        } catch (RuntimeException e) {
            o.info(e);
        }
        return true;
    }
}
