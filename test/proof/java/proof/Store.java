package proof;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The resource server, as one process uses it: the Go package store's
 * operations, with the same Lua files (read from the directory the harness
 * names) and the same keys.
 */
final class Store {
    private final RScript script;
    private final RedissonClient client;
    private final String process;
    private final String read, write, enter, leave;

    Store(RedissonClient client, String process, Path lua) throws IOException {
        this.client = client;
        this.script = client.getScript(StringCodec.INSTANCE);
        this.process = process;
        this.read = Files.readString(lua.resolve("read.lua"));
        this.write = Files.readString(lua.resolve("write.lua"));
        this.enter = Files.readString(lua.resolve("enter.lua"));
        this.leave = Files.readString(lua.resolve("leave.lua"));
    }

    /** The name in Redis of a workload's object in a namespace at an epoch. */
    static String object(String namespace, String workload, long epoch) {
        return "proof:" + namespace + ":" + workload + ":" + epoch;
    }

    /** The name of the object of workload in namespace that process alone uses before it joins the others. */
    static String warmup(String namespace, String workload, String process) {
        return "proof:" + namespace + ":" + workload + ":warmup-" + process;
    }

    long epoch(String namespace, String workload) {
        String v = client.<String>getBucket("epoch:" + namespace + ":" + workload, StringCodec.INSTANCE).get();
        return v == null ? 0 : Long.parseLong(v);
    }

    /** Reads the fenced register with token; the register has now seen token. */
    long read(String object, long token) {
        return eval(read, List.<Object>of("reg:" + object), Long.toString(token));
    }

    /** Offers value with token to the fenced register; true when accepted. */
    boolean write(String object, long token, long value) {
        return eval(write, List.<Object>of("reg:" + object), Long.toString(token), Long.toString(value)) == 1;
    }

    /** Reads the plain register with GET (0 when never written). */
    long get(String object) {
        String v = client.<String>getBucket("reg:" + object, StringCodec.INSTANCE).get();
        return v == null ? 0 : Long.parseLong(v);
    }

    /** Writes the plain register with SET. */
    void set(String object, long value) {
        client.<String>getBucket("reg:" + object, StringCodec.INSTANCE).set(Long.toString(value));
    }

    /** Marks this process in the section; how many are inside now. */
    long enter(String object) {
        return eval(enter, List.<Object>of("in:" + object, "in:" + object + ":procs"), process);
    }

    /** Marks this process out of the section; how many are inside now. */
    long leave(String object) {
        return eval(leave, List.<Object>of("in:" + object, "in:" + object + ":procs"), process);
    }

    /** Draws the next of object's tickets (1, 2, ...): the Go package store's Ticket. */
    long ticket(String object) {
        return client.getAtomicLong("tickets:" + object).incrementAndGet();
    }

    /** Records that round of object has begun: its latch has its count. */
    void open(String object, long round) {
        client.<String>getBucket("round:" + object + ":" + round, StringCodec.INSTANCE).set("1");
    }

    /** Whether round of object has begun. */
    boolean isOpen(String object, long round) {
        return client.<String>getBucket("round:" + object + ":" + round, StringCodec.INSTANCE).isExists();
    }

    private long eval(String lua, List<Object> keys, Object... args) {
        Long n = script.eval(RScript.Mode.READ_WRITE, lua, RScript.ReturnType.INTEGER, keys, args);
        return n;
    }
}
