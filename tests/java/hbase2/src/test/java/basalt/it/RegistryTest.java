package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.junit.jupiter.api.Test;

/**
 * Connecting through RpcConnectionRegistry (HBase 3.0's default, opt-in in 2.5 and 2.6): no
 * ZooKeeper, only a server's RPC address ({@code BASALT_RPC}) to bootstrap from.
 */
class RegistryTest {
    static Configuration conf() {
        String rpc = System.getenv("BASALT_RPC");
        if (rpc == null || rpc.isEmpty()) {
            throw new IllegalStateException("BASALT_RPC is not set: run this suite through tests/java/run.sh");
        }
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.client.registry.impl", "org.apache.hadoop.hbase.client.RpcConnectionRegistry");
        conf.set("hbase.client.bootstrap.servers", rpc);
        // Nothing may come from ZooKeeper: the quorum named is nowhere.
        conf.set("hbase.zookeeper.quorum", "127.0.0.1:1");
        return conf;
    }

    @Test
    void theClientBootstrapsFromTheRpcPortAlone() throws Exception {
        TableName name = Basalt.create("registry", "cf");
        try (Connection conn = ConnectionFactory.createConnection(conf()); Admin admin = conn.getAdmin();
             Table t = conn.getTable(name)) {
            assertNotNull(admin.getClusterMetrics().getClusterId());
            assertEquals(Basalt.connection().getAdmin().getClusterMetrics().getClusterId(),
                admin.getClusterMetrics().getClusterId());
            assertTrue(admin.tableExists(name));
            t.put(new Put(b("r")).addColumn(b("cf"), b("q"), b("through the registry")));
            assertEquals("through the registry", s(t.get(new Get(b("r"))).value()));
        }
        try (AsyncConnection async = ConnectionFactory.createAsyncConnection(conf()).get()) {
            assertEquals("through the registry", s(async.getTable(name).get(new Get(b("r"))).get().value()));
        }
    }
}
