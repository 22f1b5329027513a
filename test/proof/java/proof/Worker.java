package proof;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;
import org.redisson.config.SubscriptionMode;
import org.redisson.misc.RedisURI;

/**
 * The Java process of a proof fleet: the Go worker's workloads, with real
 * Redisson, each in a thread of its own (each thread its own lock owner),
 * on the objects of every namespace, every operation recorded in the
 * process's history file.
 *
 * <pre>
 * java -cp redisson-peer.jar:classes proof.Worker --process java-1 --history java-1.jsonl \
 *   --resource 127.0.0.1:P --single 127.0.0.1:Q --ack-sentinels 127.0.0.1:R,... --noack-sentinels ... \
 *   --via 127.0.0.1:S=127.0.0.1:T,... --lua DIR
 * </pre>
 *
 * Every connection to a lock service goes through a proxy of the process's
 * own: --single is the single server's, --via maps the Sentinel
 * deployments' data nodes to theirs (Redisson's NAT map); the Sentinels
 * themselves are reached directly.
 *
 * It first warms up: each loop runs for --warmup on an object of its own
 * (recorded like the others), so that the JIT, connections and
 * subscriptions are ready before it contends with other processes. It then
 * prints "ready", starts on the run's objects when it reads "go" on its
 * stdin, and on SIGTERM finishes the iteration each thread is in, releases
 * what it holds, and exits 0.
 */
public final class Worker {

    static final List<String> NAMESPACES = List.of("single", "ack", "noack");
    static final List<String> WORKLOADS = List.of("fenced", "plain", "fair", "rw", "semaphore", "pesemaphore", "election", "latch", "rate", "redlock");

    /** The command line, flags --name value, with the Go worker's defaults. */
    final Map<String, String> flags = new LinkedHashMap<>(Map.ofEntries(
            Map.entry("process", "java-1"), Map.entry("history", ""), Map.entry("resource", ""),
            Map.entry("single", ""), Map.entry("ack-sentinels", ""), Map.entry("noack-sentinels", ""),
            Map.entry("master", "mymaster"), Map.entry("via", ""),
            Map.entry("namespaces", String.join(",", NAMESPACES)), Map.entry("workloads", String.join(",", WORKLOADS)),
            Map.entry("lease", "2000"), Map.entry("fair-wait", "5000"), Map.entry("permit-lease", "2000"),
            Map.entry("permits", "2"), Map.entry("ack-timeout", "1000"), Map.entry("hold", "3"),
            Map.entry("think", "10"), Map.entry("wait", "20000"), Map.entry("seed", "1"), Map.entry("lua", ""),
            Map.entry("warmup", "2000"), Map.entry("long", "1"),
            Map.entry("redlock", ""), Map.entry("cluster", "")));

    /** The bounds of a long hold (workLong), in leases. */
    private static final double LONG_HOLD_MIN = 0.5, LONG_HOLD_MAX = 4;

    /** The pause before a command is sent again. */
    static final ConstantDelay RETRY = new ConstantDelay(Duration.ofMillis(100));

    History history;
    /** The fair waiters' queued records, from every lock client's connections. */
    final Queued queued = new Queued();
    Store store;
    final Map<String, RedissonClient> locks = new HashMap<>();
    /** A client of each redlock server, when the redlock workload runs. */
    final List<RedissonClient> redlock = new ArrayList<>();
    private RedissonClient resource;
    private final List<Loop> loops = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    volatile boolean stopping;
    /**
     * A permit for each long hold in progress (Loop.work): --long at once,
     * so that the process always has that many sections outliving
     * renewals, and the others stay short. Null during the warm-up, which
     * takes none.
     */
    volatile Semaphore longHolds;

    public static void main(String[] args) throws Exception {
        Worker w = new Worker();
        try {
            w.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("worker: " + e.getMessage());
            System.exit(2);
        }
        w.start();
        Runtime.getRuntime().addShutdownHook(new Thread(w::stop));
        w.warmup();
        System.out.println("ready");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("go")) {
                w.longHolds = new Semaphore(Integer.parseInt(w.flag("long")));
                w.threads.forEach(Thread::start);
                return;
            }
        }
    }

    /**
     * Works for 0.5 to 4 leases (drawn with rng) if one of the process's
     * long holds is free, and reports whether it did: real work that
     * outlives several renewals. Redisson tells its holder nothing, so it
     * works to the end.
     */
    boolean workLong(Random rng) throws InterruptedException {
        Semaphore s = longHolds;
        if (s == null || !s.tryAcquire()) {
            return false;
        }
        try {
            Thread.sleep((long) (millis("lease") * (LONG_HOLD_MIN + rng.nextDouble() * (LONG_HOLD_MAX - LONG_HOLD_MIN))));
        } finally {
            s.release();
        }
        return true;
    }

    /** Runs every loop on its warm-up object for --warmup, in parallel. */
    void warmup() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis("warmup"));
        List<Thread> ts = new ArrayList<>();
        for (Loop l : loops) {
            Thread t = new Thread(() -> l.warm(deadline), "warmup");
            ts.add(t);
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    void parse(String[] args) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i].replaceFirst("^--?", "");
            String v;
            int eq = a.indexOf('=');
            if (eq >= 0) {
                v = a.substring(eq + 1);
                a = a.substring(0, eq);
            } else if (i + 1 < args.length) {
                v = args[++i];
            } else {
                throw new IllegalArgumentException("flag --" + a + " needs a value");
            }
            if (!flags.containsKey(a)) {
                throw new IllegalArgumentException("unknown flag --" + a);
            }
            flags.put(a, v);
        }
        for (String f : List.of("history", "resource", "lua")) {
            if (flags.get(f).isEmpty()) {
                throw new IllegalArgumentException("--" + f + " is required");
            }
        }
    }

    String flag(String k) { return flags.get(k); }

    long millis(String k) { return Long.parseLong(flag(k)); }

    static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        for (String f : s.split(",")) {
            if (!f.isBlank()) {
                out.add(f.trim());
            }
        }
        return out;
    }

    void start() throws Exception {
        String process = flag("process");
        history = new History(flag("history"), process);
        Config rc = base();
        // The resource's connections carry the process's name, so that the
        // harness sees when the last of a killed process's is gone. No fault
        // touches the resource, but a paused JVM wakes to replies that came
        // while it slept: its commands wait long, and are never sent twice,
        // so that an outcome recorded is the outcome of the one run (a write
        // resent after its first run was accepted would come back rejected;
        // an INCR resent would count twice).
        rc.useSingleServer().setAddress("redis://" + flag("resource")).setClientName(process)
                .setTimeout(30000).setRetryAttempts(0)
                .setConnectionMinimumIdleSize(2).setConnectionPoolSize(32);
        resource = Redisson.create(rc);
        store = new Store(resource, process, Path.of(flag("lua")));
        for (String ns : split(flag("namespaces"))) {
            locks.put(ns, Redisson.create(lockConfig(ns)));
        }
        redlock.addAll(RedLock.clients(this));
        long seed = Long.parseLong(flag("seed"));
        int n = 0;
        for (String ns : split(flag("namespaces"))) {
            for (String wl : split(flag("workloads"))) {
                if (wl.equals("redlock") && !ns.equals("single")) {
                    continue; // one redlock loop: its servers are its own, no namespace's
                }
                Loop l = new Loop(this, ns, wl, seed * 1000 + n++);
                loops.add(l);
                threads.add(new Thread(l::run, ns + "/" + wl));
            }
        }
    }

    /** What every Redisson client of the process shares: few threads, Redisson's own codec. */
    private Config base() {
        Config c = new Config();
        c.setThreads(2);
        c.setNettyThreads(4);
        c.setLockWatchdogTimeout(millis("lease"));
        c.setFairLockWaitTimeout(millis("fair-wait"));
        c.setNettyHook(queued);
        return c;
    }

    /**
     * The client of a namespace's lock service. Commands that Redis does not
     * answer fail within a second, as the Go worker's. On Sentinel, Redisson
     * waits (WAIT) after every lock script, its renewals too, for the
     * master's replicas for up to slavesSyncTimeout and, with
     * checkLockSyncedSlaves (its default), undoes an acquisition that no
     * replica acknowledged: on in the ack namespace, off in noack. Its
     * response timeout there is a second more than that wait: with less, a
     * replica slow to acknowledge times the command out, and a watchdog
     * whose renewals time out and are sent again renews seconds apart, past
     * the lease.
     */
    private Config lockConfig(String ns) {
        Config c = base();
        if (ns.equals("single")) {
            c.useSingleServer().setAddress("redis://" + flag("single")).setTimeout(1000).setConnectTimeout(1000)
                    .setRetryAttempts(2).setRetryDelay(RETRY)
                    .setConnectionMinimumIdleSize(2).setConnectionPoolSize(16)
                    .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(8);
            return c;
        }
        if (ns.equals("cluster")) {
            return Cluster.config(c, this);
        }
        SentinelServersConfig s = c.useSentinelServers().setMasterName(flag("master")).setCheckSentinelsList(false)
                .setReadMode(ReadMode.MASTER).setSubscriptionMode(SubscriptionMode.MASTER)
                .setTimeout(1000 + (int) millis("ack-timeout")).setConnectTimeout(1000).setRetryAttempts(2).setRetryDelay(RETRY)
                .setMasterConnectionMinimumIdleSize(2).setMasterConnectionPoolSize(16)
                .setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(8);
        for (String a : split(flag(ns + "-sentinels"))) {
            s.addSentinelAddress("redis://" + a);
        }
        Map<String, String> via = via();
        s.setNatMapper(uri -> {
            String proxy = via.get(uri.getHost() + ":" + uri.getPort());
            return proxy == null ? uri : new RedisURI(uri.getScheme() + "://" + proxy);
        });
        c.setCheckLockSyncedSlaves(ns.equals("ack"));
        c.setSlavesSyncTimeout(millis("ack-timeout"));
        return c;
    }

    /** --via: each data node's proxy, by the node's host:port. */
    Map<String, String> via() {
        Map<String, String> via = new HashMap<>();
        for (String pair : split(flag("via"))) {
            String[] nodeProxy = pair.split("=", 2);
            via.put(nodeProxy[0], nodeProxy[1]);
        }
        return via;
    }

    /** SIGTERM: let every thread finish its iteration (for a while), then close. */
    void stop() {
        stopping = true;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                return;
            }
        }
        locks.values().forEach(RedissonClient::shutdown);
        redlock.forEach(RedissonClient::shutdown);
        resource.shutdown();
        try {
            history.close();
        } catch (java.io.IOException e) {
            System.err.println("worker: history: " + e);
        }
    }
}
