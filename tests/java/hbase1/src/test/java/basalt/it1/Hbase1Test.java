package basalt.it1;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HColumnDescriptor;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.HTableDescriptor;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.CompareFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HBase 1.x's client, as long-lived applications still write it: HTableDescriptor,
 * checkAndPut, HTable-era calls, against the Basalt named by BASALT_ZK.
 */
class Hbase1Test {
    static Connection conn;
    static TableName name = TableName.valueOf("h1_" + System.nanoTime() % 100000);

    static byte[] b(String s) {
        return Bytes.toBytes(s);
    }

    @BeforeAll
    static void connect() throws Exception {
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", System.getenv("BASALT_ZK"));
        conn = ConnectionFactory.createConnection(conf);
        HTableDescriptor table = new HTableDescriptor(name);
        table.addFamily(new HColumnDescriptor("cf").setMaxVersions(3));
        try (Admin admin = conn.getAdmin()) {
            admin.createTable(table, new byte[][] {b("m")});
            assertTrue(admin.tableExists(name));
            assertTrue(admin.isTableAvailable(name));
        }
    }

    @AfterAll
    static void close() throws Exception {
        try (Admin admin = conn.getAdmin()) {
            admin.disableTable(name);
            admin.deleteTable(name);
            assertFalse(admin.tableExists(name));
        }
        conn.close();
    }

    @Test
    void putGetDeleteAndExists() throws Exception {
        try (Table t = conn.getTable(name)) {
            t.put(new Put(b("a")).addColumn(b("cf"), b("q"), b("1")));
            t.put(new Put(b("z")).addColumn(b("cf"), b("q"), b("2")));
            assertEquals("1", Bytes.toString(t.get(new Get(b("a"))).getValue(b("cf"), b("q"))));
            assertEquals("2", Bytes.toString(t.get(new Get(b("z"))).getValue(b("cf"), b("q"))));
            assertTrue(t.exists(new Get(b("a"))));
            t.delete(new Delete(b("a")));
            assertFalse(t.exists(new Get(b("a"))));
            Result[] both = t.get(List.of(new Get(b("a")), new Get(b("z"))));
            assertTrue(both[0].isEmpty());
            assertEquals("2", Bytes.toString(both[1].value()));
        }
    }

    @Test
    void scansAcrossRegionsWithFilters() throws Exception {
        try (Table t = conn.getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (char c = 'a'; c <= 'z'; c++) {
                puts.add(new Put(b("s" + c)).addColumn(b("cf"), b("v"), b(String.valueOf(c))));
            }
            t.put(puts);
            int n = 0;
            try (ResultScanner rs = t.getScanner(new Scan(b("s"), b("t")).setCaching(5))) {
                for (Result r : rs) {
                    n++;
                }
            }
            assertEquals(26, n);
            Scan filtered = new Scan();
            filtered.setFilter(new SingleColumnValueFilter(b("cf"), b("v"), CompareFilter.CompareOp.EQUAL, b("q")));
            try (ResultScanner rs = t.getScanner(filtered)) {
                Result r = rs.next();
                assertEquals("sq", Bytes.toString(r.getRow()));
                assertNull(rs.next());
            }
            Scan prefixed = new Scan();
            prefixed.setFilter(new PrefixFilter(b("sm")));
            try (ResultScanner rs = t.getScanner(prefixed)) {
                assertEquals("sm", Bytes.toString(rs.next().getRow()));
            }
            Scan reversed = new Scan();
            reversed.setReversed(true);
            reversed.setStartRow(b("sz"));
            reversed.setStopRow(b("sw"));
            try (ResultScanner rs = t.getScanner(reversed)) {
                assertEquals("sz", Bytes.toString(rs.next().getRow()));
                assertEquals("sy", Bytes.toString(rs.next().getRow()));
            }
        }
    }

    @Test
    void atomicCalls() throws Exception {
        try (Table t = conn.getTable(name)) {
            assertEquals(5L, t.incrementColumnValue(b("n"), b("cf"), b("c"), 5L));
            Result inc = t.increment(new Increment(b("n")).addColumn(b("cf"), b("c"), 2L));
            assertEquals(7L, Bytes.toLong(inc.getValue(b("cf"), b("c"))));
            t.append(new Append(b("n")).add(b("cf"), b("s"), b("ab")));
            assertEquals("abcd", Bytes.toString(t.append(new Append(b("n")).add(b("cf"), b("s"), b("cd"))).getValue(b("cf"), b("s"))));
            Put put = new Put(b("cp")).addColumn(b("cf"), b("q"), b("x"));
            assertTrue(t.checkAndPut(b("cp"), b("cf"), b("q"), null, put));
            assertFalse(t.checkAndPut(b("cp"), b("cf"), b("q"), null, put));
            assertTrue(t.checkAndDelete(b("cp"), b("cf"), b("q"), b("x"), new Delete(b("cp"))));
            RowMutations rm = new RowMutations(b("rm"));
            rm.add(new Put(b("rm")).addColumn(b("cf"), b("a"), b("1")));
            rm.add(new Put(b("rm")).addColumn(b("cf"), b("b"), b("2")));
            t.mutateRow(rm);
            assertEquals(2, t.get(new Get(b("rm"))).size());
        }
    }

    @Test
    void batchesAndTheBufferedMutator() throws Exception {
        try (Table t = conn.getTable(name)) {
            List<Row> actions = List.of(new Put(b("b1")).addColumn(b("cf"), b("q"), b("1")), new Get(b("z")),
                new Increment(b("b2")).addColumn(b("cf"), b("n"), 3L));
            Object[] results = new Object[3];
            t.batch(actions, results);
            assertEquals(3L, Bytes.toLong(((Result) results[2]).getValue(b("cf"), b("n"))));
        }
        try (BufferedMutator m = conn.getBufferedMutator(name)) {
            for (int i = 0; i < 500; i++) {
                m.mutate(new Put(b(String.format("bm%03d", i))).addColumn(b("cf"), b("q"), b("v" + i)));
            }
            m.flush();
        }
        try (Table t = conn.getTable(name)) {
            assertEquals("v499", Bytes.toString(t.get(new Get(b("bm499"))).value()));
        }
    }

    @Test
    void adminAndLocations() throws Exception {
        try (Admin admin = conn.getAdmin(); RegionLocator locator = conn.getRegionLocator(name)) {
            List<HRegionLocation> locations = locator.getAllRegionLocations();
            assertEquals(2, locations.size());
            assertArrayEquals(b("m"), locations.get(1).getRegionInfo().getStartKey());
            boolean listed = false;
            for (HTableDescriptor d : admin.listTables()) {
                listed |= d.getTableName().equals(name);
            }
            assertTrue(listed);
            assertEquals(3, admin.getTableDescriptor(name).getFamily(b("cf")).getMaxVersions());
            assertTrue(admin.getClusterStatus().getServersSize() >= 1);
            assertThrows(TableNotFoundException.class, () -> admin.getTableDescriptor(TableName.valueOf("no_such_table")));
        }
    }
}
