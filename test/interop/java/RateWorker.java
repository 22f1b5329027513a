import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateLimiterConfig;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Drives Redisson RRateLimiters for relock's interop tests and reports what
 * it did as JSON lines on stdout: the Java side of limiters shared with Go.
 *
 * <pre>
 * RateWorker --addr HOST:PORT [--cluster true]
 * </pre>
 *
 * It connects, prints {"event":"ready"}, then runs the commands it reads
 * on stdin, one a line, until EOF or "exit":
 *
 * <pre>
 *   set --name N     setRate(--type, --rate, --interval ms, --keepalive ms)  {"event":"set"}
 *   tryset --name N  trySetRate(the same)                                  {"event":"tryset","set":B}
 *   config --name N  getConfig() and availablePermits()                    {"event":"config","rate":N,"interval":MS,"type":"OVERALL|PER_CLIENT","available":N}
 *   take --name N    tryAcquire(--permits, may be 0) once                    {"event":"take","granted":B}
 *   release --name N release(--permits)                                      {"event":"release"}
 *   run --name N     --threads T, for --duration ms (or --tries attempts each), each: take --permits with --how:
 *                      try       tryAcquire(n), then sleep --pace ms
 *                      acquire   acquire(n)
 *                    one line per grant, then a summary:                   {"event":"grant","t0":MS,"t":MS,"n":N}
 *                                                                          {"event":"done","grants":N,"attempts":N,"tick":MS,"errors":[...]}
 * </pre>
 *
 * "t0" and "t" are epoch milliseconds with a fraction, from the host clock,
 * taken as the call that was granted began and returned: Redisson stamps
 * the permits between them. "tick" is the tick of the client's timer, on
 * which its waiters retry (Redisson draws it at start from its retry
 * delay and timeout), read from Redisson's internals; -1 if unreadable.
 * A command that fails prints {"event":"error","error":"..."}, and the
 * next one runs.
 */
public class RateWorker {
    static final Map<String, String> flags = new HashMap<>();

    static String flag(String name, String def) { return flags.getOrDefault(name, def); }

    static long num(String name, long def) { return Long.parseLong(flag(name, Long.toString(def))); }

    /** timerTick is the Redisson client's timer tick in ms, -1 if unreadable. */
    static long timerTick = -1;

    /** readTimerTick reads the tick of the client's timer (a HashedWheelTimer), by reflection. */
    static long readTimerTick(RedissonClient redisson) {
        try {
            Object sm = ((Redisson) redisson).getServiceManager();
            Field timer = sm.getClass().getDeclaredField("timer");
            timer.setAccessible(true);
            Object t = timer.get(sm);
            Field tick = t.getClass().getDeclaredField("tickDuration");
            tick.setAccessible(true);
            return ((Long) tick.get(t)) / 1_000_000;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    static double nowMillis() {
        Instant t = Instant.now();
        return t.getEpochSecond() * 1000.0 + t.getNano() / 1e6;
    }

    static synchronized void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
    }

    /** parse sets flags from --name value pairs. */
    static void parse(String[] words, int from) {
        flags.clear();
        for (int i = from; i + 1 < words.length; i += 2) {
            flags.put(words[i].replaceFirst("^--?", ""), words[i + 1]);
        }
    }

    public static void main(String[] argv) throws Exception {
        parse(argv, 0);
        Config cfg = new Config();
        if (flag("cluster", "false").equals("true")) {
            cfg.useClusterServers().addNodeAddress("redis://" + flag("addr", "127.0.0.1:6379"));
        } else {
            cfg.useSingleServer().setAddress("redis://" + flag("addr", "127.0.0.1:6379"));
        }
        RedissonClient redisson = Redisson.create(cfg);
        timerTick = readTimerTick(redisson);
        try {
            emit("{\"event\":\"ready\",\"t\":" + nowMillis() + "}");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
            for (String line; (line = in.readLine()) != null && !line.trim().equals("exit"); ) {
                String[] words = line.trim().split("\\s+");
                if (words.length == 0 || words[0].isEmpty()) {
                    continue;
                }
                parse(words, 1);
                try {
                    run(words[0], redisson.getRateLimiter(flag("name", "interop:rate")));
                } catch (Exception e) {
                    emit("{\"event\":\"error\",\"error\":" + quote(e.toString()) + "}");
                }
            }
        } finally {
            redisson.shutdown();
        }
    }

    static void run(String mode, RRateLimiter rl) throws Exception {
        RateType type = flag("type", "overall").equals("per_client") ? RateType.PER_CLIENT : RateType.OVERALL;
        long rate = num("rate", 1);
        Duration interval = Duration.ofMillis(num("interval", 1000));
        Duration keepAlive = Duration.ofMillis(num("keepalive", 0));
        switch (mode) {
            case "set" -> {
                rl.setRate(type, rate, interval, keepAlive);
                emit("{\"event\":\"set\"}");
            }
            case "tryset" -> emit("{\"event\":\"tryset\",\"set\":" + rl.trySetRate(type, rate, interval, keepAlive) + "}");
            case "config" -> {
                RateLimiterConfig c = rl.getConfig();
                emit("{\"event\":\"config\",\"rate\":" + c.getRate() + ",\"interval\":" + c.getRateInterval()
                        + ",\"type\":" + quote(String.valueOf(c.getRateType())) + ",\"available\":" + rl.availablePermits() + "}");
            }
            case "take" -> emit("{\"event\":\"take\",\"granted\":" + rl.tryAcquire(num("permits", 1)) + "}");
            case "release" -> {
                rl.release(num("permits", 1));
                emit("{\"event\":\"release\"}");
            }
            case "run" -> runThreads(rl);
            default -> throw new IllegalArgumentException("unknown mode " + quote(mode));
        }
    }

    /** run: the threads take permits until the duration ends; then every grant and a summary. */
    static void runThreads(RRateLimiter rl) throws Exception {
        int threads = (int) num("threads", 2);
        long permits = num("permits", 1);
        long pace = num("pace", 0);
        long tries = num("tries", 0);
        String how = flag("how", "try");
        double end = nowMillis() + num("duration", 5000);
        ConcurrentLinkedQueue<String> grants = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        AtomicLong attempts = new AtomicLong();
        List<Thread> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread th = new Thread(() -> {
                try {
                    for (long n = 1; nowMillis() < end && (tries == 0 || n <= tries); n++) {
                        attempts.incrementAndGet();
                        double t0 = nowMillis();
                        boolean ok = true;
                        if (how.equals("acquire")) {
                            rl.acquire(permits);
                        } else {
                            ok = rl.tryAcquire(permits);
                        }
                        double t = nowMillis();
                        if (ok && t < end) {
                            grants.add("{\"event\":\"grant\",\"t0\":" + t0 + ",\"t\":" + t + ",\"n\":" + permits + "}");
                        }
                        if (pace > 0) {
                            Thread.sleep(pace);
                        }
                    }
                } catch (Exception e) {
                    errors.add(quote(e.toString()));
                }
            });
            th.start();
            all.add(th);
        }
        for (Thread th : all) {
            th.join();
        }
        for (String g : grants) {
            emit(g);
        }
        emit("{\"event\":\"done\",\"grants\":" + grants.size() + ",\"attempts\":" + attempts.get()
                + ",\"tick\":" + timerTick + ",\"errors\":[" + String.join(",", errors) + "]}");
    }
}
