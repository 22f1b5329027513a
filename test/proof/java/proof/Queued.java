package proof;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import org.redisson.api.RedissonClient;
import org.redisson.client.NettyHook;
import org.redisson.client.protocol.CommandData;

/**
 * Records when a Redisson fair waiter had joined the queue at the latest
 * (history op queued, as the Go worker's): a fair tryLock subscribes to
 * its owner's channel only once its first attempt was answered busy, so
 * the SUBSCRIBE of that channel, seen as Redisson writes it, comes after
 * the join. A loop expects the channel for the span of its acquire.
 */
final class Queued implements NettyHook {

    private final Map<String, History.Op> expected = new ConcurrentHashMap<>();

    /**
     * Marks o, an acquire of the fair lock name by this thread through r,
     * queued when a SUBSCRIBE of the thread's own channel is written, once;
     * returns the channel, for forget.
     */
    String expect(RedissonClient r, String name, History.Op o) {
        String channel = "redisson_lock__channel:{" + name + "}:" + r.getId() + ":" + Thread.currentThread().getId();
        expected.put(channel, o);
        return channel;
    }

    /** Ends expect's span (null: none). */
    void forget(String channel) {
        if (channel != null) {
            expected.remove(channel);
        }
    }

    @Override
    public void afterBoostrapInitialization(Bootstrap bootstrap) {}

    @Override
    public void afterChannelInitialization(Channel channel) {
        channel.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
                if (msg instanceof CommandData<?, ?> d && "SUBSCRIBE".equals(d.getCommand().getName())) {
                    for (Object channel : d.getParams()) {
                        History.Op o = expected.remove(channel.toString());
                        if (o != null) {
                            o.mark("queued");
                        }
                    }
                }
                super.write(ctx, msg, promise);
            }
        });
    }
}
