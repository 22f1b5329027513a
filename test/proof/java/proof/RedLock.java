package proof;

import java.util.ArrayList;
import java.util.List;

import org.redisson.Redisson;
import org.redisson.RedissonRedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The redlock workload's lock, as the Go worker's: a RedissonRedLock over
 * an RLock of the object's name on each of the three redlock servers
 * (through this process's proxies, --redlock), held with the members'
 * watchdogs, taken, held and released as the fair lock is (Loop's lock).
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

    /** The RedissonRedLock of object: an RLock of that name on each redlock server. RedissonRedLock is deprecated, and the subject. */
    @SuppressWarnings("deprecation")
    static RLock of(Worker w, String object) {
        List<RLock> members = new ArrayList<>();
        for (RedissonClient c : w.redlock) {
            members.add(c.getLock(object));
        }
        return new RedissonRedLock(members.toArray(new RLock[0]));
    }
}
