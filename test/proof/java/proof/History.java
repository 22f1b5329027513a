package proof;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One process's history file, in the format of the Go package history: a
 * JSON object per line, an invocation before each operation and a
 * completion after it. Each line is one write(2) on a file opened for
 * appending, so a process killed with SIGKILL loses no line it finished
 * writing.
 */
final class History {

    /** One line's fields; zero and null fields are left out, as in Go. */
    static final class Event {
        String type, workload, name, op, mode, error;
        long id, t, value, token, count;
    }

    /** An invoked operation, waiting for its completion. */
    final class Op {
        private final Event inv;

        Op(Event inv) { this.inv = inv; }

        /** Records the completion: type ok, fail or info; the outcome's fields in c. */
        void done(String type, Event c) {
            c.t = now();
            complete(type, c);
        }

        /** Records the completion at c.t. */
        private void complete(String type, Event c) {
            c.type = type;
            c.id = inv.id;
            c.workload = inv.workload;
            c.name = inv.name;
            c.op = inv.op;
            if (c.mode == null) {
                c.mode = inv.mode;
            }
            write(c);
        }

        /** Records an instant of op on this operation's object, its value this operation's id. */
        void mark(String op) {
            Event e = new Event();
            e.workload = inv.workload;
            e.name = inv.name;
            e.op = op;
            e.value = inv.id;
            Op m = invoke(e);
            Event ok = new Event();
            ok.t = e.t;
            m.complete("ok", ok);
        }

        /** Records a completion with an error: the effect is unknown. */
        void info(RuntimeException e) { done("info", outcome(0, 0, 0, e.toString())); }
    }

    private final FileOutputStream out;
    private final String process;
    private final AtomicLong next = new AtomicLong();

    History(String path, String process) throws IOException {
        this.out = new FileOutputStream(path, true);
        this.process = process;
    }

    /** Records the start of op on name, for workload. */
    Op invoke(String workload, String name, String op, String mode, long value, long token) {
        Event e = new Event();
        e.workload = workload;
        e.name = name;
        e.op = op;
        e.mode = mode;
        e.value = value;
        e.token = token;
        return invoke(e);
    }

    /** A completion's fields. */
    static Event outcome(long value, long token, long count, String error) {
        Event e = new Event();
        e.value = value;
        e.token = token;
        e.count = count;
        e.error = error;
        return e;
    }

    /** Records the start of an operation; e's type, id and t are set here. */
    Op invoke(Event e) {
        e.type = "invoke";
        e.id = next.incrementAndGet();
        e.t = now();
        write(e);
        return new Op(e);
    }

    /** Nanoseconds since the Unix epoch, the host's clock (microsecond resolution). */
    static long now() {
        Instant i = Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    private void write(Event e) {
        StringBuilder b = new StringBuilder(192);
        b.append("{\"type\":").append(quote(e.type));
        b.append(",\"process\":").append(quote(process)).append(",\"side\":\"java\"");
        field(b, "workload", e.workload);
        field(b, "name", e.name);
        b.append(",\"id\":").append(e.id);
        field(b, "op", e.op);
        b.append(",\"t\":").append(e.t);
        field(b, "mode", e.mode);
        field(b, "value", e.value);
        field(b, "token", e.token);
        field(b, "count", e.count);
        field(b, "error", e.error);
        b.append("}\n");
        byte[] line = b.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(line);
            } catch (IOException ex) {
                // What this process would do next could not be checked.
                System.err.println("worker: history: " + ex);
                Runtime.getRuntime().halt(1);
            }
        }
    }

    synchronized void close() throws IOException { out.close(); }

    private static void field(StringBuilder b, String k, String v) {
        if (v != null && !v.isEmpty()) {
            b.append(",\"").append(k).append("\":").append(quote(v));
        }
    }

    private static void field(StringBuilder b, String k, long v) {
        if (v != 0) {
            b.append(",\"").append(k).append("\":").append(v);
        }
    }

    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
