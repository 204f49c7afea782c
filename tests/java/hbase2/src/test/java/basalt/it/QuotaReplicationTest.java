package basalt.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.quotas.QuotaFilter;
import org.apache.hadoop.hbase.quotas.QuotaSettings;
import org.apache.hadoop.hbase.quotas.QuotaSettingsFactory;
import org.apache.hadoop.hbase.quotas.QuotaType;
import org.apache.hadoop.hbase.quotas.SpaceViolationPolicy;
import org.apache.hadoop.hbase.quotas.ThrottleSettings;
import org.apache.hadoop.hbase.quotas.ThrottleType;
import org.apache.hadoop.hbase.replication.ReplicationPeerConfig;
import org.apache.hadoop.hbase.replication.ReplicationPeerDescription;
import org.junit.jupiter.api.Test;

/** Admin's quota and replication peer calls, as an operator's tool writes them. */
class QuotaReplicationTest {
    private static Admin admin() throws Exception {
        return Basalt.connection().getAdmin();
    }

    private static List<QuotaSettings> quotas(Admin admin, QuotaFilter filter) throws Exception {
        return admin.getQuota(filter);
    }

    @Test
    void throttlesAreSetListedAndRemoved() throws Exception {
        try (Admin admin = admin()) {
            String user = "jq_" + System.nanoTime() % 100000;
            TableName table = Basalt.create("quota", "cf");
            admin.setQuota(QuotaSettingsFactory.throttleUser(user, ThrottleType.REQUEST_NUMBER, 100, TimeUnit.SECONDS));
            admin.setQuota(QuotaSettingsFactory.throttleTable(table, ThrottleType.WRITE_SIZE, 1 << 20, TimeUnit.MINUTES));

            List<QuotaSettings> mine = quotas(admin, new QuotaFilter().setUserFilter(user));
            assertEquals(1, mine.size(), "one throttle for " + user + ": " + mine);
            ThrottleSettings throttle = (ThrottleSettings) mine.get(0);
            assertEquals(user, throttle.getUserName());
            assertEquals(ThrottleType.REQUEST_NUMBER, throttle.getThrottleType());
            assertEquals(100, throttle.getSoftLimit());
            assertEquals(TimeUnit.SECONDS, throttle.getTimeUnit());

            List<QuotaSettings> onTable = quotas(admin, new QuotaFilter().setTableFilter(table.getNameAsString()));
            assertEquals(1, onTable.size(), "the table's throttle: " + onTable);
            ThrottleSettings tableThrottle = (ThrottleSettings) onTable.get(0);
            assertEquals(table, tableThrottle.getTableName());
            assertEquals(ThrottleType.WRITE_SIZE, tableThrottle.getThrottleType());
            assertEquals(1 << 20, tableThrottle.getSoftLimit());

            admin.setQuota(QuotaSettingsFactory.unthrottleUser(user));
            admin.setQuota(QuotaSettingsFactory.unthrottleTable(table));
            assertTrue(quotas(admin, new QuotaFilter().setUserFilter(user)).isEmpty());
            assertTrue(quotas(admin, new QuotaFilter().setTableFilter(table.getNameAsString())).isEmpty());
        }
    }

    @Test
    void aSpaceLimitIsSetListedAndRemoved() throws Exception {
        try (Admin admin = admin()) {
            TableName table = Basalt.create("space", "cf");
            admin.setQuota(QuotaSettingsFactory.limitTableSpace(table, 1L << 30, SpaceViolationPolicy.NO_INSERTS));
            List<QuotaSettings> listed = quotas(admin, new QuotaFilter().setTableFilter(table.getNameAsString()));
            assertEquals(1, listed.size(), "the table's space limit: " + listed);
            QuotaSettings limit = listed.get(0);
            assertEquals(QuotaType.SPACE, limit.getQuotaType());
            assertEquals(table, limit.getTableName());
            assertTrue(limit.toString().contains("NO_INSERTS"), limit.toString());
            admin.setQuota(QuotaSettingsFactory.removeTableSpaceLimit(table));
            assertTrue(quotas(admin, new QuotaFilter().setTableFilter(table.getNameAsString())).isEmpty());
        }
    }

    @Test
    void theRpcThrottleSwitchReportsItsLastState() throws Exception {
        try (Admin admin = admin()) {
            boolean was = admin.isRpcThrottleEnabled();
            assertEquals(was, admin.switchRpcThrottle(!was));
            assertEquals(!was, admin.isRpcThrottleEnabled());
            assertEquals(!was, admin.switchRpcThrottle(was));
            assertEquals(was, admin.isRpcThrottleEnabled());
        }
    }

    private static ReplicationPeerDescription peer(Admin admin, String id) throws Exception {
        for (ReplicationPeerDescription d : admin.listReplicationPeers()) {
            if (d.getPeerId().equals(id)) {
                return d;
            }
        }
        return null;
    }

    /** Admin.isReplicationPeerEnabled (2.6; null on a client without it). */
    private static Boolean peerEnabled(Admin admin, String id) throws Exception {
        java.lang.reflect.Method m;
        try {
            m = Admin.class.getMethod("isReplicationPeerEnabled", String.class);
        } catch (NoSuchMethodException e) {
            return admin.getReplicationPeerConfig(id) == null ? null : peer(admin, id).isEnabled();
        }
        return (Boolean) m.invoke(admin, id);
    }

    @Test
    void replicationPeersAreAddedChangedSwitchedAndRemoved() throws Exception {
        try (Admin admin = admin()) {
            String id = "jp" + System.nanoTime() % 100000;
            TableName table = Basalt.create("replicated", "cf", "other");
            // The peer's cluster key names this cluster's own ZooKeeper: nothing is written to
            // the replicated table, so nothing ships.
            String key = Basalt.quorum() + ":/hbase";
            ReplicationPeerConfig config = ReplicationPeerConfig.newBuilder()
                .setClusterKey(key)
                .setReplicateAllUserTables(false)
                .setTableCFsMap(Map.of(table, List.of("cf")))
                .build();
            // Added disabled.
            admin.addReplicationPeer(id, config, false);
            ReplicationPeerDescription added = peer(admin, id);
            assertFalse(added == null, "listed after it was added");
            assertFalse(added.isEnabled());
            assertEquals(key, added.getPeerConfig().getClusterKey());
            assertEquals(List.of("cf"), admin.getReplicationPeerConfig(id).getTableCFsMap().get(table));
            assertEquals(1, admin.listReplicationPeers(java.util.regex.Pattern.compile(id)).size());

            assertThrows(DoNotRetryIOException.class, () -> admin.addReplicationPeer(id, config, false),
                "a second peer with the same id is refused");

            admin.enableReplicationPeer(id);
            assertTrue(peer(admin, id).isEnabled());
            assertEquals(Boolean.TRUE, peerEnabled(admin, id));
            admin.disableReplicationPeer(id);
            assertFalse(peer(admin, id).isEnabled());
            assertEquals(Boolean.FALSE, peerEnabled(admin, id));

            ReplicationPeerConfig wider = ReplicationPeerConfig.newBuilder(config)
                .setTableCFsMap(Map.of(table, new ArrayList<>()))
                .setBandwidth(1 << 20)
                .build();
            admin.updateReplicationPeerConfig(id, wider);
            ReplicationPeerConfig now = admin.getReplicationPeerConfig(id);
            assertTrue(now.getTableCFsMap().containsKey(table));
            assertTrue(now.getTableCFsMap().get(table) == null || now.getTableCFsMap().get(table).isEmpty(),
                "every family of the table: " + now.getTableCFsMap());
            assertEquals(1 << 20, now.getBandwidth());

            admin.removeReplicationPeer(id);
            assertEquals(null, peer(admin, id));
            assertThrows(DoNotRetryIOException.class, () -> admin.getReplicationPeerConfig(id));
        }
    }
}
