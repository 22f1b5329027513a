package proof;

import java.util.Map;

import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import org.redisson.config.SubscriptionMode;
import org.redisson.misc.RedisURI;

/**
 * The cluster namespace's client: Redis Cluster through this process's
 * proxies (--via maps each node, as CLUSTER NODES names it, to its
 * proxy), commands failing within a second as the other namespaces', no
 * wait for replicas.
 */
final class Cluster {
    private Cluster() {}

    static Config config(Config c, Worker w) {
        Map<String, String> via = w.via();
        ClusterServersConfig cl = c.useClusterServers().setReadMode(ReadMode.MASTER)
                .setSubscriptionMode(SubscriptionMode.MASTER)
                .setTimeout(1000).setConnectTimeout(1000).setRetryAttempts(2)
                .setRetryDelay(Worker.RETRY)
                .setMasterConnectionMinimumIdleSize(2).setMasterConnectionPoolSize(16)
                .setSlaveConnectionMinimumIdleSize(1).setSlaveConnectionPoolSize(2)
                .setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(8)
                .setNatMapper(uri -> {
                    String proxy = via.get(uri.getHost() + ":" + uri.getPort());
                    return proxy == null ? uri : new RedisURI(uri.getScheme() + "://" + proxy);
                });
        for (String node : Worker.split(w.flag("cluster"))) {
            cl.addNodeAddress("redis://" + via.getOrDefault(node, node));
        }
        c.setCheckLockSyncedSlaves(false);
        return c;
    }
}
