package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Pattern;

import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceExistException;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableExistsException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.regionserver.BloomType;
import org.junit.jupiter.api.Test;

/** Admin's table, namespace and region calls, as an operator's tool writes them. */
class AdminTest {
    private static Admin admin() throws Exception {
        return Basalt.connection().getAdmin();
    }

    private static void fill(TableName name, int rows) throws Exception {
        try (Table t = Basalt.connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                puts.add(new Put(b(String.format("row%04d", i))).addColumn(b("cf"), b("q"), b("v" + i)));
            }
            t.put(puts);
        }
    }

    @Test
    void namespacesAndTheirTables() throws Exception {
        try (Admin admin = admin()) {
            String ns = "jns" + System.nanoTime() % 100000;
            admin.createNamespace(NamespaceDescriptor.create(ns).addConfiguration("owner", "java").build());
            assertThrows(NamespaceExistException.class, () -> admin.createNamespace(NamespaceDescriptor.create(ns).build()));
            assertEquals("java", admin.getNamespaceDescriptor(ns).getConfigurationValue("owner"));
            boolean listed = false;
            for (NamespaceDescriptor d : admin.listNamespaceDescriptors()) {
                listed |= d.getName().equals(ns);
            }
            assertTrue(listed);
            assertTrue(List.of(admin.listNamespaces()).contains(ns));
            admin.modifyNamespace(NamespaceDescriptor.create(ns).addConfiguration("owner", "ops").build());
            assertEquals("ops", admin.getNamespaceDescriptor(ns).getConfigurationValue("owner"));
            TableName inNs = TableName.valueOf(ns, "t");
            Basalt.create(inNs, new String[] {"cf"});
            assertEquals(List.of(inNs), List.of(admin.listTableNamesByNamespace(ns)));
            List<TableDescriptor> described = admin.listTableDescriptorsByNamespace(b(ns));
            assertEquals(1, described.size());
            assertEquals(inNs, described.get(0).getTableName());
            assertThrows(NamespaceNotFoundException.class, () -> admin.getNamespaceDescriptor("no_such_ns"));
            admin.disableTable(inNs);
            admin.deleteTable(inNs);
            admin.deleteNamespace(ns);
            assertThrows(NamespaceNotFoundException.class, () -> admin.getNamespaceDescriptor(ns));
        }
    }

    @Test
    void createWithSplitsAndAttributesThenModify() throws Exception {
        try (Admin admin = admin()) {
            TableName name = Basalt.table("create");
            TableDescriptor desc = TableDescriptorBuilder.newBuilder(name)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(b("cf")).setMaxVersions(4).setTimeToLive(86400)
                    .setBloomFilterType(BloomType.ROWCOL).setCompressionType(Compression.Algorithm.NONE)
                    .setBlocksize(32 * 1024).setInMemory(true).build())
                .setMaxFileSize(512L * 1024 * 1024).setMemStoreFlushSize(64L * 1024 * 1024).setValue("app", "basalt")
                .build();
            admin.createTable(desc, new byte[][] {b("g"), b("p")});
            assertThrows(TableExistsException.class, () -> admin.createTable(desc));
            TableDescriptor read = admin.getDescriptor(name);
            ColumnFamilyDescriptor cf = read.getColumnFamily(b("cf"));
            assertEquals(4, cf.getMaxVersions());
            assertEquals(86400, cf.getTimeToLive());
            assertEquals(BloomType.ROWCOL, cf.getBloomFilterType());
            assertEquals(32 * 1024, cf.getBlocksize());
            assertTrue(cf.isInMemory());
            assertEquals(512L * 1024 * 1024, read.getMaxFileSize());
            assertEquals("basalt", read.getValue("app"));
            List<RegionInfo> regions = admin.getRegions(name);
            assertEquals(3, regions.size());
            assertArrayEquals(b("g"), regions.get(1).getStartKey());
            assertArrayEquals(b("p"), regions.get(1).getEndKey());
            // Pre-split by a range: ten regions between two keys.
            TableName ranged = Basalt.table("ranged");
            admin.createTable(TableDescriptorBuilder.newBuilder(ranged)
                .setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build(), b("a"), b("z"), 10);
            assertEquals(10, admin.getRegions(ranged).size());

            admin.modifyTable(TableDescriptorBuilder.newBuilder(read).setValue("app", "changed").build());
            assertEquals("changed", admin.getDescriptor(name).getValue("app"));
            admin.addColumnFamily(name, ColumnFamilyDescriptorBuilder.newBuilder(b("added")).setMaxVersions(2).build());
            assertEquals(2, admin.getDescriptor(name).getColumnFamily(b("added")).getMaxVersions());
            admin.modifyColumnFamily(name, ColumnFamilyDescriptorBuilder.newBuilder(b("added")).setMaxVersions(7).build());
            assertEquals(7, admin.getDescriptor(name).getColumnFamily(b("added")).getMaxVersions());
            admin.deleteColumnFamily(name, b("added"));
            assertEquals(1, admin.getDescriptor(name).getColumnFamilyCount());
        }
    }

    @Test
    void disableEnableTruncateAndListings() throws Exception {
        try (Admin admin = admin()) {
            TableName name = Basalt.create("states", "cf");
            fill(name, 10);
            assertTrue(admin.isTableEnabled(name));
            admin.disableTable(name);
            assertTrue(admin.isTableDisabled(name));
            listingsByState(admin, name);
            admin.enableTable(name);
            assertTrue(admin.isTableEnabled(name));
            assertTrue(admin.isTableAvailable(name));
            admin.disableTable(name);
            admin.truncateTable(name, true);
            assertTrue(admin.isTableEnabled(name));
            try (Table t = Basalt.connection().getTable(name)) {
                assertTrue(t.get(new Get(b("row0001"))).isEmpty());
            }
            // A pattern only this table's name matches ("." standing for one of its letters).
            Pattern pattern = Pattern.compile(name.getNameAsString().replace("_states_", "_st.tes_"));
            List<TableName> matched = List.of(admin.listTableNames(pattern));
            assertEquals(List.of(name), matched);
            assertEquals(1, admin.listTableDescriptors(pattern).size());
            assertTrue(admin.listTableDescriptors(List.of(name)).size() == 1);
            assertThrows(TableNotFoundException.class, () -> admin.getDescriptor(TableName.valueOf("no_such_table")));
        }
    }

    /**
     * Admin.listTableNamesByState and listTableDescriptorsByState (HBase 2.6's; skipped on a
     * client without them), with {@code disabled} disabled.
     */
    @SuppressWarnings("unchecked")
    private static void listingsByState(Admin admin, TableName disabled) throws Exception {
        Method names;
        Method descriptors;
        try {
            names = Admin.class.getMethod("listTableNamesByState", boolean.class);
            descriptors = Admin.class.getMethod("listTableDescriptorsByState", boolean.class);
        } catch (NoSuchMethodException e) {
            return;
        }
        assertTrue(((List<TableName>) names.invoke(admin, false)).contains(disabled));
        assertFalse(((List<TableName>) names.invoke(admin, true)).contains(disabled));
        boolean described = false;
        for (TableDescriptor d : (List<TableDescriptor>) descriptors.invoke(admin, false)) {
            described |= d.getTableName().equals(disabled);
        }
        assertTrue(described);
    }

    @Test
    void flushCompactSplitMergeAndMove() throws Exception {
        try (Admin admin = admin()) {
            TableName name = Basalt.create("regions", "cf");
            fill(name, 200);
            admin.flush(name);
            admin.compact(name);
            admin.majorCompact(name);
            CompactionState state = admin.getCompactionState(name);
            assertNotNull(state);
            assertTrue(admin.getLastMajorCompactionTimestamp(name) >= 0);
            admin.split(name, b("row0100"));
            List<RegionInfo> regions = waitForRegions(admin, name, 2);
            assertArrayEquals(b("row0100"), regions.get(1).getStartKey());
            // Both halves read back every row.
            try (Table t = Basalt.connection().getTable(name)) {
                assertEquals("v150", s(t.get(new Get(b("row0150"))).getValue(b("cf"), b("q"))));
                assertEquals("v50", s(t.get(new Get(b("row0050"))).getValue(b("cf"), b("q"))));
            }
            admin.mergeRegionsAsync(new byte[][] {regions.get(0).getEncodedNameAsBytes(), regions.get(1).getEncodedNameAsBytes()},
                false).get();
            waitForRegions(admin, name, 1);
            RegionInfo merged = admin.getRegions(name).get(0);
            ServerName server = admin.getRegionServers().iterator().next();
            admin.move(merged.getEncodedNameAsBytes(), server);
            try (Table t = Basalt.connection().getTable(name)) {
                assertEquals("v199", s(t.get(new Get(b("row0199"))).getValue(b("cf"), b("q"))));
            }
        }
    }

    @Test
    void namedProceduresRunAndFinishedOnesAreNotAborted() throws Exception {
        try (Admin admin = admin()) {
            TableName name = Basalt.create("procs", "cf");
            fill(name, 10);
            java.util.Map<String, String> props = new java.util.HashMap<>();
            // The flush procedure has no return data.
            assertEquals(null, admin.execProcedureWithReturn("flush-table-proc", name.getNameAsString(), props));
            assertTrue(admin.isProcedureFinished("flush-table-proc", name.getNameAsString(), props));
            assertThrows(org.apache.hadoop.hbase.DoNotRetryIOException.class,
                () -> admin.execProcedureWithReturn("no-such-proc", name.getNameAsString(), props));
            // A procedure that already finished (the create's) cannot be aborted.
            assertFalse(admin.abortProcedure(1, true));
            try (Table t = Basalt.connection().getTable(name)) {
                assertEquals("v9", s(t.get(new Get(b("row0009"))).getValue(b("cf"), b("q"))));
            }
        }
    }

    @Test
    void truncateRegionEmptiesOneRegion() throws Exception {
        Method truncate;
        try {
            truncate = Admin.class.getMethod("truncateRegion", byte[].class);
        } catch (NoSuchMethodException e) {
            return; // 2.6's call; 2.5 lacks it
        }
        try (Admin admin = admin()) {
            TableName name = Basalt.create(Basalt.table("truncregion"), new String[] {"cf"}, b("row0100"));
            fill(name, 200);
            List<RegionInfo> regions = admin.getRegions(name);
            assertEquals(2, regions.size());
            truncate.invoke(admin, (Object) regions.get(0).getRegionName());
            try (Table t = Basalt.connection().getTable(name)) {
                assertTrue(t.get(new Get(b("row0050"))).isEmpty(), "the first region's rows are gone");
                assertEquals("v150", s(t.get(new Get(b("row0150"))).getValue(b("cf"), b("q"))));
                t.put(new Put(b("row0050")).addColumn(b("cf"), b("q"), b("again")));
                assertEquals("again", s(t.get(new Get(b("row0050"))).getValue(b("cf"), b("q"))));
            }
            List<RegionInfo> after = admin.getRegions(name);
            assertEquals(2, after.size());
            assertArrayEquals(b("row0100"), after.get(1).getStartKey());
            // The second region's 100 rows, and the one written after.
            assertEquals(101, Basalt.scanAll(name, new org.apache.hadoop.hbase.client.Scan()).size());
        }
    }

    private static List<RegionInfo> waitForRegions(Admin admin, TableName name, int count) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        List<RegionInfo> regions = admin.getRegions(name);
        while (regions.size() != count && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            regions = admin.getRegions(name);
        }
        assertEquals(count, regions.size(), "regions of " + name);
        return regions;
    }

    @Test
    void clusterMetricsAndBalancer() throws Exception {
        try (Admin admin = admin()) {
            ClusterMetrics metrics = admin.getClusterMetrics();
            assertNotNull(metrics.getMasterName());
            assertTrue(metrics.getLiveServerMetrics().size() >= 1);
            assertNotNull(metrics.getClusterId());
            ClusterMetrics servers = admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS));
            assertTrue(servers.getLiveServerMetrics().size() >= 1);
            assertFalse(admin.getRegionServers().isEmpty());
            boolean was = admin.balancerSwitch(false, true);
            assertFalse(admin.isBalancerEnabled());
            admin.balancerSwitch(was, true);
            assertEquals(was, admin.isBalancerEnabled());
            admin.balance();
            assertTrue(admin.isMasterInMaintenanceMode() == false);
        }
    }
}
