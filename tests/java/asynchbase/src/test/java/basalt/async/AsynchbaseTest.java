package basalt.async;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import com.stumbleupon.async.Deferred;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.hbase.async.AtomicIncrementRequest;
import org.hbase.async.ColumnPrefixFilter;
import org.hbase.async.DeleteRequest;
import org.hbase.async.GetRequest;
import org.hbase.async.HBaseClient;
import org.hbase.async.KeyValue;
import org.hbase.async.NoSuchColumnFamilyException;
import org.hbase.async.PutRequest;
import org.hbase.async.Scanner;
import org.hbase.async.TableNotFoundException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * asynchbase 1.8 (OpenTSDB's client) against the Basalt named by BASALT_ZK: it finds
 * hbase:meta through ZooKeeper, looks regions up by reversed scans of meta (HBase 2's way),
 * and speaks the region servers' RPC on its own.
 */
class AsynchbaseTest {
  static final long TIMEOUT_MS = 30_000;
  static final byte[] F = bytes("f");
  static String table;
  static HBaseClient client;

  static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  static String string(byte[] b) {
    return new String(b, UTF_8);
  }

  static <T> T join(Deferred<T> d) throws Exception {
    return d.joinUninterruptibly(TIMEOUT_MS);
  }

  @BeforeAll
  static void setUp() throws Exception {
    String zk = System.getenv("BASALT_ZK");
    if (zk == null) {
      throw new IllegalStateException("BASALT_ZK is not set: run this suite through tests/java/run.sh");
    }
    table = "async_" + System.nanoTime() % 100000;
    // Three regions, so that lookups and scans cross region boundaries.
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", zk);
    try (Connection conn = ConnectionFactory.createConnection(conf);
        Admin admin = conn.getAdmin()) {
      admin.createTable(
          TableDescriptorBuilder.newBuilder(TableName.valueOf(table))
              .setColumnFamily(
                  ColumnFamilyDescriptorBuilder.newBuilder(F).setMaxVersions(3).build())
              .build(),
          new byte[][] {bytes("g"), bytes("p")});
    }
    client = new HBaseClient(zk);
    join(client.ensureTableFamilyExists(table, "f"));
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (client != null) {
      join(client.shutdown());
    }
  }

  static List<KeyValue> get(String row) throws Exception {
    return join(client.get(new GetRequest(table, row)));
  }

  /**
   * asynchbase looks regions up with HBase 1.x's closest-row-before Get, and switches to
   * reversed scans of meta when the server refuses it as HBase 2 does (Basalt's
   * basalt.regionserver.closest.row.before=false). BASALT_META_LOOKUP (get or scan) says
   * which the server under test allows; the client's own flag says which it used.
   */
  @Test
  void regionsAreLookedUpTheWayTheServerAllows() throws Exception {
    String expected = System.getenv("BASALT_META_LOOKUP");
    join(client.put(new PutRequest(bytes(table), bytes("lookup"), F, bytes("q"), bytes("x"))));
    java.lang.reflect.Field flag = HBaseClient.class.getDeclaredField("scan_meta");
    flag.setAccessible(true);
    boolean scanned = flag.getBoolean(client);
    if (expected != null) {
      assertEquals(expected.equals("scan"), scanned, "meta looked up by " + expected);
    }
  }

  @Test
  void putThenGetReadsTheCellBack() throws Exception {
    join(client.put(new PutRequest(bytes(table), bytes("alpha"), F, bytes("q"), bytes("one"))));
    List<KeyValue> cells = get("alpha");
    assertEquals(1, cells.size());
    KeyValue kv = cells.get(0);
    assertEquals("alpha", string(kv.key()));
    assertEquals("f", string(kv.family()));
    assertEquals("q", string(kv.qualifier()));
    assertEquals("one", string(kv.value()));
    assertTrue(kv.timestamp() > 0);
  }

  @Test
  void putsAtExplicitTimestampsKeepTheirVersions() throws Exception {
    for (long ts = 1; ts <= 3; ts++) {
      join(client.put(new PutRequest(bytes(table), bytes("gamma"), F, bytes("v"),
          bytes("v" + ts), ts)));
    }
    GetRequest get = new GetRequest(table, "gamma").family("f").qualifier("v").maxVersions(3);
    List<KeyValue> cells = join(client.get(get));
    assertEquals(3, cells.size(), "newest first, three versions: " + cells);
    assertEquals("v3", string(cells.get(0).value()));
    assertEquals(3, cells.get(0).timestamp());
    assertEquals("v1", string(cells.get(2).value()));
  }

  @Test
  void aBatchOfBufferedPutsIsFlushedAndReadBack() throws Exception {
    // asynchbase buffers puts and sends them as one Multi per region server.
    List<Deferred<Object>> pending = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      String row = String.format("batch%03d", i);
      pending.add(client.put(new PutRequest(bytes(table), bytes(row), F, bytes("n"),
          bytes(Integer.toString(i)))));
    }
    join(client.flush());
    join(Deferred.group(pending));
    assertEquals("123", string(get("batch123").get(0).value()));
    Scanner scanner = client.newScanner(table);
    scanner.setStartKey("batch");
    scanner.setStopKey("batch~");
    assertEquals(200, countRows(scanner));
  }

  static int countRows(Scanner scanner) throws Exception {
    int rows = 0;
    try {
      ArrayList<ArrayList<KeyValue>> batch;
      while ((batch = join(scanner.nextRows())) != null) {
        rows += batch.size();
      }
    } finally {
      join(scanner.close());
    }
    return rows;
  }

  @Test
  void scansCrossRegionsInOrderWithFiltersAndLimits() throws Exception {
    String[] rows = {"aa", "bb", "hh", "mm", "qq", "zz"};
    for (String row : rows) {
      join(client.put(new PutRequest(bytes(table), bytes("scan-" + row), F, bytes("c1"),
          bytes(row))));
      join(client.put(new PutRequest(bytes(table), bytes(row + "-scan"), F, bytes("x1"),
          bytes(row))));
    }
    Scanner scanner = client.newScanner(table);
    scanner.setStartKey("aa-scan");
    scanner.setStopKey("zz-scan~");
    scanner.setFamily("f");
    scanner.setFilter(new ColumnPrefixFilter("x"));
    scanner.setMaxNumRows(2); // rows per call: several round trips
    List<String> seen = new ArrayList<>();
    ArrayList<ArrayList<KeyValue>> batch;
    while ((batch = join(scanner.nextRows())) != null) {
      assertTrue(batch.size() <= 2);
      for (ArrayList<KeyValue> row : batch) {
        assertEquals(1, row.size());
        assertEquals("x1", string(row.get(0).qualifier()));
        seen.add(string(row.get(0).key()));
      }
    }
    join(scanner.close());
    assertEquals(List.of("aa-scan", "bb-scan", "hh-scan", "mm-scan", "qq-scan", "zz-scan"), seen);
  }

  @Test
  void aReversedScanWalksBackAcrossRegions() throws Exception {
    for (String row : new String[] {"rev-a", "rev-h", "rev-q"}) {
      join(client.put(new PutRequest(bytes(table), bytes(row), F, bytes("r"), bytes(row))));
    }
    for (String row : new String[] {"c-rev", "k-rev", "t-rev"}) {
      join(client.put(new PutRequest(bytes(table), bytes(row), F, bytes("r"), bytes(row))));
    }
    Scanner scanner = client.newScanner(table);
    scanner.setReversed(true);
    scanner.setStartKey("u");
    scanner.setStopKey("c");
    scanner.setFilter(new ColumnPrefixFilter("r"));
    List<String> seen = new ArrayList<>();
    ArrayList<ArrayList<KeyValue>> batch;
    while ((batch = join(scanner.nextRows())) != null) {
      for (ArrayList<KeyValue> row : batch) {
        seen.add(string(row.get(0).key()));
      }
    }
    join(scanner.close());
    assertEquals(List.of("t-rev", "rev-q", "rev-h", "rev-a", "k-rev", "c-rev"), seen);
  }

  @Test
  void atomicIncrementsAddUpAndReturnTheNewValue() throws Exception {
    AtomicIncrementRequest inc = new AtomicIncrementRequest(table, "counter", "f", "hits", 5);
    assertEquals(5L, join(client.atomicIncrement(inc)));
    assertEquals(12L, join(client.atomicIncrement(
        new AtomicIncrementRequest(table, "counter", "f", "hits", 7))));
    assertEquals(2L, join(client.atomicIncrement(
        new AtomicIncrementRequest(table, "counter", "f", "hits", -10))));
    // Buffered increments (OpenTSDB's way) are coalesced and flushed.
    List<Deferred<Long>> pending = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pending.add(client.bufferAtomicIncrement(
          new AtomicIncrementRequest(table, "counter", "f", "hits", 1)));
    }
    join(client.flush());
    join(Deferred.group(pending));
    byte[] stored = get("counter").get(0).value();
    assertEquals(8, stored.length);
    assertEquals(12L, java.nio.ByteBuffer.wrap(stored).getLong());
  }

  @Test
  void compareAndSetWritesOnlyWhenTheValueMatches() throws Exception {
    PutRequest first = new PutRequest(bytes(table), bytes("cas"), F, bytes("lock"), bytes("a"));
    // Expected empty: the cell must not exist yet.
    assertTrue(join(client.compareAndSet(first, new byte[0])));
    PutRequest wrong = new PutRequest(bytes(table), bytes("cas"), F, bytes("lock"), bytes("b"));
    assertFalse(join(client.compareAndSet(wrong, bytes("z"))));
    PutRequest right = new PutRequest(bytes(table), bytes("cas"), F, bytes("lock"), bytes("c"));
    assertTrue(join(client.compareAndSet(right, bytes("a"))));
    assertArrayEquals(bytes("c"), get("cas").get(0).value());
  }

  @Test
  void deletesRemoveCellsAndRows() throws Exception {
    join(client.put(new PutRequest(bytes(table), bytes("del"), F,
        new byte[][] {bytes("a"), bytes("b")}, new byte[][] {bytes("1"), bytes("2")})));
    assertEquals(2, get("del").size());
    join(client.delete(new DeleteRequest(bytes(table), bytes("del"), F, bytes("a"))));
    List<KeyValue> left = get("del");
    assertEquals(1, left.size());
    assertEquals("b", string(left.get(0).qualifier()));
    join(client.delete(new DeleteRequest(table, "del")));
    assertTrue(get("del").isEmpty());
  }

  @Test
  void aMissingTableOrFamilyIsReportedByName() throws Exception {
    // A name that sorts before every table: meta's reversed scan finds no row. (For a name
    // after another table's, asynchbase finds that table's last region, never matches it and
    // gives up after its retries, with HBase as with Basalt.)
    assertThrows(TableNotFoundException.class,
        () -> join(client.ensureTableExists("0_no_such_table_" + System.nanoTime())));
    assertThrows(NoSuchColumnFamilyException.class,
        () -> join(client.ensureTableFamilyExists(table, "nope")));
  }
}
