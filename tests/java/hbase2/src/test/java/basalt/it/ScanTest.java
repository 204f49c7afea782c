package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scans with every option a Scan has, over a table split in three. */
class ScanTest {
    static TableName name;
    static final int ROWS = 30;

    static String row(int i) {
        return String.format("r%02d", i);
    }

    @BeforeAll
    static void load() throws Exception {
        name = Basalt.create(Basalt.table("scan"), new String[] {"cf", "other"}, b("r10"), b("r20"));
        try (Table t = Basalt.connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < ROWS; i++) {
                Put p = new Put(b(row(i)));
                for (int c = 0; c < 4; c++) {
                    p.addColumn(b("cf"), b("c" + c), 100L, b("old" + i + "-" + c));
                    p.addColumn(b("cf"), b("c" + c), 200L, b("v" + i + "-" + c));
                }
                p.addColumn(b("other"), b("x"), 200L, b("x" + i));
                puts.add(p);
            }
            t.put(puts);
        }
    }

    private static List<Result> scan(Scan scan) throws Exception {
        return Basalt.scanAll(name, scan);
    }

    private static List<String> rows(List<Result> results) {
        List<String> out = new ArrayList<>();
        for (Result r : results) {
            out.add(s(r.getRow()));
        }
        return out;
    }

    @Test
    void aFullScanCrossesEveryRegionInOrder() throws Exception {
        for (int caching : new int[] {1, 7, 1000}) {
            List<Result> all = scan(new Scan().setCaching(caching));
            assertEquals(ROWS, all.size(), "caching " + caching);
            for (int i = 0; i < ROWS; i++) {
                assertEquals(row(i), s(all.get(i).getRow()));
                assertEquals(5, all.get(i).size());
            }
        }
    }

    @Test
    void startStopAndReversed() throws Exception {
        assertEquals(List.of("r08", "r09", "r10", "r11"), rows(scan(new Scan().withStartRow(b("r08")).withStopRow(b("r12")))));
        assertEquals(List.of("r09", "r10", "r11", "r12"),
            rows(scan(new Scan().withStartRow(b("r08"), false).withStopRow(b("r12"), true))));
        List<String> reversed = rows(scan(new Scan().setReversed(true).withStartRow(b("r21")).withStopRow(b("r18"))));
        assertEquals(List.of("r21", "r20", "r19"), reversed);
        List<String> whole = rows(scan(new Scan().setReversed(true)));
        assertEquals(ROWS, whole.size());
        assertEquals("r29", whole.get(0));
        assertEquals("r00", whole.get(ROWS - 1));
        assertEquals(List.of("r05", "r15"), rows(scan(new Scan().withStartRow(b("r05")).withStopRow(b("r16"))
            .setFilter(new RowFilter(CompareOperator.EQUAL, new RegexStringComparator(".*5"))))));
        assertEquals(10, scan(new Scan().setRowPrefixFilter(b("r1"))).size());
    }

    @Test
    void limitsAndBatches() throws Exception {
        assertEquals(List.of("r00", "r01", "r02"), rows(scan(new Scan().setLimit(3))));
        assertEquals(List.of("r29", "r28"), rows(scan(new Scan().setReversed(true).setLimit(2))));
        // Batch: at most 2 cells per Result, a row split across Results.
        List<Result> batched = scan(new Scan().withStartRow(b("r03")).withStopRow(b("r05")).setBatch(2));
        assertEquals(6, batched.size());
        for (Result r : batched) {
            assertTrue(r.size() <= 2);
        }
        // Partial results: a row may come in pieces; together they hold the row.
        List<Result> partial = scan(new Scan().withStartRow(b("r03")).withStopRow(b("r06")).setAllowPartialResults(true).setMaxResultSize(1));
        int cells = 0;
        for (Result r : partial) {
            cells += r.size();
        }
        assertEquals(15, cells);
        assertTrue(partial.size() >= 3);
        // One row per call, caching 1, over a region boundary.
        assertEquals(List.of("r09", "r10"), rows(scan(new Scan().withStartRow(b("r09")).withStopRow(b("r11")).setCaching(1))));
    }

    @Test
    void timeRangesVersionsFamiliesAndColumns() throws Exception {
        Result old = scan(new Scan().withStartRow(b("r01")).withStopRow(b("r02")).setTimeRange(0, 150)).get(0);
        assertEquals("old1-0", s(old.getValue(b("cf"), b("c0"))));
        assertEquals(4, old.size());
        Result both = scan(new Scan().withStartRow(b("r01")).withStopRow(b("r02")).readAllVersions().addFamily(b("cf"))).get(0);
        assertEquals(8, both.size());
        Result two = scan(new Scan().withStartRow(b("r01")).withStopRow(b("r02")).readVersions(1).setTimestamp(100L)).get(0);
        assertEquals(4, two.size());
        Result columns = scan(new Scan().withStartRow(b("r01")).withStopRow(b("r02")).addColumn(b("cf"), b("c1"))
            .addColumn(b("other"), b("x"))).get(0);
        assertEquals(2, columns.size());
        assertEquals("x1", s(columns.getValue(b("other"), b("x"))));
        assertEquals(ROWS, scan(new Scan().addFamily(b("other"))).size());
    }

    @Test
    void rawScansSeeDeleteMarkers() throws Exception {
        TableName raw = Basalt.create("raw", "cf");
        try (Table t = Basalt.connection().getTable(raw)) {
            t.put(new Put(b("a")).addColumn(b("cf"), b("q"), 10L, b("v")));
            t.delete(new Delete(b("a")).addColumn(b("cf"), b("q"), 10L));
            try (ResultScanner plain = t.getScanner(new Scan())) {
                assertEquals(null, plain.next());
            }
            try (ResultScanner rs = t.getScanner(new Scan().setRaw(true).readAllVersions())) {
                Result r = rs.next();
                List<Cell> cells = r.listCells();
                assertEquals(2, cells.size());
                assertTrue(CellUtil.isDelete(cells.get(0)), "the marker comes first");
                assertEquals("v", s(CellUtil.cloneValue(cells.get(1))));
            }
        }
    }

    @Test
    void scanMetricsCountRowsAndRegions() throws Exception {
        Scan scan = new Scan().setScanMetricsEnabled(true);
        try (Table t = Basalt.connection().getTable(name); ResultScanner rs = t.getScanner(scan)) {
            int n = 0;
            while (rs.next() != null) {
                n++;
            }
            assertEquals(ROWS, n);
            ScanMetrics metrics = rs.getScanMetrics();
            assertEquals(ROWS, metrics.countOfRowsScanned.get(), "rows scanned, as the server counts them");
            assertTrue(metrics.countOfRegions.get() >= 3, "regions: " + metrics.countOfRegions.get());
            assertTrue(metrics.countOfRPCcalls.get() >= 3);
        }
    }

    @Test
    void aScannerClosedEarlyAndOneLeftOpen() throws Exception {
        try (Table t = Basalt.connection().getTable(name)) {
            ResultScanner rs = t.getScanner(new Scan().setCaching(2));
            assertEquals("r00", s(rs.next().getRow()));
            Result[] next = rs.next(3);
            assertEquals(3, next.length);
            assertEquals("r03", s(next[2].getRow()));
            rs.close();
            // Renewing the lease of an open scanner keeps it going.
            try (ResultScanner again = t.getScanner(new Scan().setCaching(1))) {
                again.next();
                assertTrue(again.renewLease());
                assertEquals("r01", s(again.next().getRow()));
            }
        }
    }
}
