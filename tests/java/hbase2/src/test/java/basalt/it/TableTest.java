package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Table's single-row calls, as an application writes them. */
class TableTest {
    static TableName name;

    @BeforeAll
    static void createTable() throws Exception {
        name = Basalt.create("table", "cf", "other");
    }

    private static Table table() throws Exception {
        return Basalt.connection().getTable(name);
    }

    @Test
    void putThenGetReadsBackEveryColumnAndVersion() throws Exception {
        try (Table t = table()) {
            t.put(new Put(b("pg")).addColumn(b("cf"), b("a"), 10L, b("old")).addColumn(b("cf"), b("a"), 20L, b("new"))
                .addColumn(b("other"), b("x"), b("y")));
            Result latest = t.get(new Get(b("pg")));
            assertEquals("new", s(latest.getValue(b("cf"), b("a"))));
            assertEquals("y", s(latest.getValue(b("other"), b("x"))));
            assertEquals(2, latest.size());

            Result all = t.get(new Get(b("pg")).addColumn(b("cf"), b("a")).readAllVersions());
            List<Cell> cells = all.getColumnCells(b("cf"), b("a"));
            assertEquals(2, cells.size());
            assertEquals(20L, cells.get(0).getTimestamp());
            assertEquals("old", s(CellUtil.cloneValue(cells.get(1))));

            Result ranged = t.get(new Get(b("pg")).addColumn(b("cf"), b("a")).setTimeRange(0, 15).readAllVersions());
            assertEquals("old", s(ranged.getValue(b("cf"), b("a"))));
            Result at = t.get(new Get(b("pg")).setTimestamp(20L));
            assertEquals("new", s(at.getValue(b("cf"), b("a"))));
            Result family = t.get(new Get(b("pg")).addFamily(b("other")));
            assertEquals(1, family.size());
            assertTrue(t.get(new Get(b("missing"))).isEmpty());
        }
    }

    @Test
    void existsAndExistsAll() throws Exception {
        try (Table t = table()) {
            t.put(new Put(b("ex1")).addColumn(b("cf"), b("q"), b("v")));
            assertTrue(t.exists(new Get(b("ex1"))));
            assertFalse(t.exists(new Get(b("ex2"))));
            boolean[] both = t.exists(List.of(new Get(b("ex1")), new Get(b("ex2"))));
            assertArrayEquals(new boolean[] {true, false}, both);
        }
    }

    @Test
    void getsInABatchComeBackInOrder() throws Exception {
        try (Table t = table()) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                puts.add(new Put(b("mg" + i)).addColumn(b("cf"), b("q"), b("v" + i)));
            }
            t.put(puts);
            List<Get> gets = new ArrayList<>();
            for (int i = 19; i >= 0; i--) {
                gets.add(new Get(b("mg" + i)));
            }
            Result[] results = t.get(gets);
            assertEquals(20, results.length);
            for (int i = 0; i < 20; i++) {
                assertEquals("v" + (19 - i), s(results[i].getValue(b("cf"), b("q"))));
            }
        }
    }

    @Test
    void deletesOfEveryKind() throws Exception {
        try (Table t = table()) {
            byte[] row = b("del");
            t.put(new Put(row).addColumn(b("cf"), b("a"), 1L, b("a1")).addColumn(b("cf"), b("a"), 2L, b("a2"))
                .addColumn(b("cf"), b("b"), b("b")).addColumn(b("cf"), b("c"), b("c")).addColumn(b("other"), b("o"), b("o")));
            // The newest version of one column: the older one shows through.
            t.delete(new Delete(row).addColumn(b("cf"), b("a")));
            assertEquals("a1", s(t.get(new Get(row)).getValue(b("cf"), b("a"))));
            // One exact version.
            t.put(new Put(row).addColumn(b("cf"), b("a"), 3L, b("a3")));
            t.delete(new Delete(row).addColumn(b("cf"), b("a"), 3L));
            assertEquals("a1", s(t.get(new Get(row)).getValue(b("cf"), b("a"))));
            // Every version of a column.
            t.delete(new Delete(row).addColumns(b("cf"), b("a")));
            assertNull(t.get(new Get(row)).getValue(b("cf"), b("a")));
            // A family.
            t.delete(new Delete(row).addFamily(b("other")));
            assertNull(t.get(new Get(row)).getValue(b("other"), b("o")));
            assertEquals("b", s(t.get(new Get(row)).getValue(b("cf"), b("b"))));
            // One version of every column of a family (a row of its own: the family delete
            // above masks every older cell of this one).
            byte[] versioned = b("del-version");
            t.put(new Put(versioned).addColumn(b("other"), b("p"), 5L, b("p5")).addColumn(b("other"), b("p"), 50L, b("p50")));
            t.delete(new Delete(versioned).addFamilyVersion(b("other"), 5L));
            Result afterVersion = t.get(new Get(versioned).addColumn(b("other"), b("p")).readAllVersions());
            assertEquals(1, afterVersion.size());
            assertEquals("p50", s(afterVersion.value()));
            // The whole row, then a batch of deletes.
            t.delete(new Delete(row));
            assertTrue(t.get(new Get(row)).isEmpty());
            t.put(List.of(new Put(b("del1")).addColumn(b("cf"), b("q"), b("1")), new Put(b("del2")).addColumn(b("cf"), b("q"), b("2"))));
            List<Delete> deletes = new ArrayList<>(List.of(new Delete(b("del1")), new Delete(b("del2"))));
            t.delete(deletes);
            assertTrue(t.get(new Get(b("del1"))).isEmpty());
            assertTrue(t.get(new Get(b("del2"))).isEmpty());
        }
    }

    @Test
    void batchMixesPutsGetsDeletesAndIncrements() throws Exception {
        try (Table t = table()) {
            t.put(new Put(b("bt-del")).addColumn(b("cf"), b("q"), b("x")));
            List<Row> actions = List.of(
                new Put(b("bt-put")).addColumn(b("cf"), b("q"), b("p")),
                new Get(b("bt-del")),
                new Delete(b("bt-del")),
                new Increment(b("bt-inc")).addColumn(b("cf"), b("n"), 5L));
            Object[] results = new Object[actions.size()];
            t.batch(actions, results);
            assertEquals("x", s(((Result) results[1]).getValue(b("cf"), b("q"))));
            assertEquals(5L, Bytes.toLong(((Result) results[3]).getValue(b("cf"), b("n"))));
            assertEquals("p", s(t.get(new Get(b("bt-put"))).getValue(b("cf"), b("q"))));
            assertTrue(t.get(new Get(b("bt-del"))).isEmpty());
        }
    }

    @Test
    void incrementAndAppend() throws Exception {
        try (Table t = table()) {
            assertEquals(3L, t.incrementColumnValue(b("inc"), b("cf"), b("n"), 3L));
            assertEquals(10L, t.incrementColumnValue(b("inc"), b("cf"), b("n"), 7L, Durability.SKIP_WAL));
            Result r = t.increment(new Increment(b("inc")).addColumn(b("cf"), b("n"), -4L).addColumn(b("cf"), b("m"), 1L));
            assertEquals(6L, Bytes.toLong(r.getValue(b("cf"), b("n"))));
            assertEquals(1L, Bytes.toLong(r.getValue(b("cf"), b("m"))));

            t.append(new Append(b("app")).addColumn(b("cf"), b("s"), b("ab")));
            Result appended = t.append(new Append(b("app")).addColumn(b("cf"), b("s"), b("cd")));
            assertEquals("abcd", s(appended.getValue(b("cf"), b("s"))));
            Result quiet = t.append(new Append(b("app")).addColumn(b("cf"), b("s"), b("e")).setReturnResults(false));
            assertTrue(quiet.isEmpty());
            assertEquals("abcde", s(t.get(new Get(b("app"))).getValue(b("cf"), b("s"))));
        }
    }

    @Test
    void checkAndMutateBuilders() throws Exception {
        try (Table t = table()) {
            byte[] row = b("cam");
            Put put = new Put(row).addColumn(b("cf"), b("q"), b("one"));
            // Absent column: the put goes in once.
            assertTrue(t.checkAndMutate(row, b("cf")).qualifier(b("q")).ifNotExists().thenPut(put));
            assertFalse(t.checkAndMutate(row, b("cf")).qualifier(b("q")).ifNotExists().thenPut(put));
            assertTrue(t.checkAndMutate(row, b("cf")).qualifier(b("q")).ifEquals(b("one"))
                .thenPut(new Put(row).addColumn(b("cf"), b("q"), b("two"))));
            // HBase compares the given value to the cell's: GREATER holds when "aaa" > "two".
            assertFalse(t.checkAndMutate(row, b("cf")).qualifier(b("q")).ifMatches(CompareOperator.GREATER, b("aaa"))
                .thenDelete(new Delete(row)));
            assertTrue(t.checkAndMutate(row, b("cf")).qualifier(b("q")).ifMatches(CompareOperator.GREATER, b("zzz"))
                .thenPut(new Put(row).addColumn(b("cf"), b("g"), b("greater"))));

            // The 2.4+ form: a CheckAndMutate with a condition or a filter, answered with a result.
            CheckAndMutateResult r = t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(b("cf"), b("q"), b("two"))
                .build(new Increment(row).addColumn(b("cf"), b("n"), 2L)));
            assertTrue(r.isSuccess());
            assertEquals(2L, Bytes.toLong(r.getResult().getValue(b("cf"), b("n"))));
            CheckAndMutateResult byFilter = t.checkAndMutate(CheckAndMutate.newBuilder(row)
                .ifMatches(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("two"))))
                .build(new Put(row).addColumn(b("cf"), b("f"), b("filtered"))));
            assertTrue(byFilter.isSuccess());
            assertEquals("filtered", s(t.get(new Get(row)).getValue(b("cf"), b("f"))));
            CheckAndMutateResult inRange = t.checkAndMutate(CheckAndMutate.newBuilder(row)
                .ifEquals(b("cf"), b("q"), b("two")).timeRange(TimeRange.between(0, 1))
                .build(new Delete(row)));
            assertFalse(inRange.isSuccess());

            RowMutations both = new RowMutations(row);
            both.add(List.<Mutation>of(new Put(row).addColumn(b("cf"), b("r"), b("rm")), new Delete(row).addColumns(b("cf"), b("f"))));
            assertTrue(t.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(b("cf"), b("q"), b("two")).build(both)).isSuccess());
            Result after = t.get(new Get(row));
            assertEquals("rm", s(after.getValue(b("cf"), b("r"))));
            assertNull(after.getValue(b("cf"), b("f")));
        }
    }

    @Test
    void rowMutationsApplyTogether() throws Exception {
        try (Table t = table()) {
            byte[] row = b("rowmut");
            t.put(new Put(row).addColumn(b("cf"), b("gone"), b("x")));
            RowMutations m = new RowMutations(row);
            m.add(List.<Mutation>of(new Put(row).addColumn(b("cf"), b("a"), b("1")), new Put(row).addColumn(b("other"), b("b"), b("2")),
                new Delete(row).addColumns(b("cf"), b("gone"))));
            t.mutateRow(m);
            Result r = t.get(new Get(row));
            assertEquals("1", s(r.getValue(b("cf"), b("a"))));
            assertEquals("2", s(r.getValue(b("other"), b("b"))));
            assertNull(r.getValue(b("cf"), b("gone")));
        }
    }

    @Test
    void putsWithTtlAndAttributes() throws Exception {
        try (Table t = table()) {
            Put put = new Put(b("attr")).addColumn(b("cf"), b("q"), b("v"));
            put.setDurability(Durability.SYNC_WAL);
            t.put(put);
            // An attribute only a coprocessor could read: Basalt runs none that reads it, and
            // says so rather than drop it (docs/design/fields.md).
            Put tagged = new Put(b("attr")).addColumn(b("cf"), b("q"), b("w"));
            tagged.setAttribute("app", b("mine"));
            DoNotRetryIOException refused = assertThrows(DoNotRetryIOException.class, () -> t.put(tagged));
            assertTrue(refused.getMessage().contains("\"app\""), refused.getMessage());
            Put shortLived = new Put(b("ttl")).addColumn(b("cf"), b("q"), b("v"));
            shortLived.setTTL(1);
            t.put(shortLived);
            assertEquals("v", s(t.get(new Get(b("attr"))).getValue(b("cf"), b("q"))));
            Thread.sleep(50);
            assertTrue(t.get(new Get(b("ttl"))).isEmpty(), "a cell past its TTL is not read");
        }
    }
}
