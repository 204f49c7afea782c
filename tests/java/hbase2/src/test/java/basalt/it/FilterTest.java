package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CompareOperator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.BigDecimalComparator;
import org.apache.hadoop.hbase.filter.BinaryComparator;
import org.apache.hadoop.hbase.filter.BinaryComponentComparator;
import org.apache.hadoop.hbase.filter.BinaryPrefixComparator;
import org.apache.hadoop.hbase.filter.BitComparator;
import org.apache.hadoop.hbase.filter.ColumnCountGetFilter;
import org.apache.hadoop.hbase.filter.ColumnPaginationFilter;
import org.apache.hadoop.hbase.filter.ColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.ColumnRangeFilter;
import org.apache.hadoop.hbase.filter.ColumnValueFilter;
import org.apache.hadoop.hbase.filter.DependentColumnFilter;
import org.apache.hadoop.hbase.filter.FamilyFilter;
import org.apache.hadoop.hbase.filter.Filter;
import org.apache.hadoop.hbase.filter.FilterList;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.filter.FuzzyRowFilter;
import org.apache.hadoop.hbase.filter.InclusiveStopFilter;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.filter.LongComparator;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.filter.MultipleColumnPrefixFilter;
import org.apache.hadoop.hbase.filter.NullComparator;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.filter.PrefixFilter;
import org.apache.hadoop.hbase.filter.QualifierFilter;
import org.apache.hadoop.hbase.filter.RandomRowFilter;
import org.apache.hadoop.hbase.filter.RegexStringComparator;
import org.apache.hadoop.hbase.filter.RowFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueExcludeFilter;
import org.apache.hadoop.hbase.filter.SingleColumnValueFilter;
import org.apache.hadoop.hbase.filter.SkipFilter;
import org.apache.hadoop.hbase.filter.SubstringComparator;
import org.apache.hadoop.hbase.filter.TimestampsFilter;
import org.apache.hadoop.hbase.filter.ValueFilter;
import org.apache.hadoop.hbase.filter.WhileMatchFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every filter class of org.apache.hadoop.hbase.filter and every comparator, each checked
 * against the rows it must keep, and FilterList nesting.
 *
 * Rows "row0".."row9" over two regions (split at "row5"): cf:name = "name{i}", cf:n = the
 * long i, cf:d = the BigDecimal i, cf:flag = one byte (i odd: 1, else 0), cf:q0..q4 = "v",
 * other:o = "o{i}"; every cell at timestamp 100 + i.
 */
class FilterTest {
    static TableName name;

    @BeforeAll
    static void load() throws Exception {
        name = Basalt.create(Basalt.table("filters"), new String[] {"cf", "other"}, b("row5"));
        try (Table t = Basalt.connection().getTable(name)) {
            List<Put> puts = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                long ts = 100 + i;
                Put p = new Put(b("row" + i)).addColumn(b("cf"), b("name"), ts, b("name" + i))
                    .addColumn(b("cf"), b("n"), ts, Bytes.toBytes((long) i))
                    .addColumn(b("cf"), b("d"), ts, Bytes.toBytes(new BigDecimal(i)))
                    .addColumn(b("cf"), b("flag"), ts, new byte[] {(byte) (i % 2)})
                    .addColumn(b("other"), b("o"), ts, b("o" + i));
                for (int q = 0; q < 5; q++) {
                    p.addColumn(b("cf"), b("q" + q), ts, b("v"));
                }
                puts.add(p);
            }
            t.put(puts);
        }
    }

    private static List<Result> scan(Filter filter) throws Exception {
        return scan(new Scan().setFilter(filter));
    }

    private static List<Result> scan(Scan scan) throws Exception {
        return Basalt.scanAll(name, scan);
    }

    private static List<String> rows(Filter filter) throws Exception {
        List<String> out = new ArrayList<>();
        for (Result r : scan(filter)) {
            out.add(s(r.getRow()));
        }
        return out;
    }

    private static List<String> rows(int... numbers) {
        List<String> out = new ArrayList<>();
        for (int n : numbers) {
            out.add("row" + n);
        }
        return out;
    }

    @Test
    void rowFilters() throws Exception {
        assertEquals(rows(3), rows(new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("row3")))));
        assertEquals(rows(0, 1, 2), rows(new RowFilter(CompareOperator.LESS, new BinaryComparator(b("row3")))));
        assertEquals(rows(7, 8, 9), rows(new RowFilter(CompareOperator.GREATER_OR_EQUAL, new BinaryComparator(b("row7")))));
        assertEquals(rows(4), rows(new RowFilter(CompareOperator.EQUAL, new SubstringComparator("w4"))));
        assertEquals(rows(2, 6), rows(new RowFilter(CompareOperator.EQUAL, new RegexStringComparator("row[26]"))));
        assertEquals(10, rows(new RowFilter(CompareOperator.EQUAL, new BinaryPrefixComparator(b("row")))).size());
        assertEquals(rows(8), rows(new PrefixFilter(b("row8"))));
        assertEquals(rows(0, 1, 2, 3, 4, 5, 6), rows(new InclusiveStopFilter(b("row6"))));
        assertEquals(rows(1, 2, 7), rows(new MultiRowRangeFilter(new ArrayList<>(List.of(
            new MultiRowRangeFilter.RowRange(b("row1"), true, b("row2"), true),
            new MultiRowRangeFilter.RowRange(b("row7"), true, b("row8"), false))))));
        assertEquals(rows(3, 6), rows(new FuzzyRowFilter(List.of(
            new Pair<>(b("row3"), new byte[] {0, 0, 0, 0}),
            new Pair<>(b("row6"), new byte[] {0, 0, 0, 0})))));
        assertEquals(10, rows(new FuzzyRowFilter(List.of(new Pair<>(b("row?"), new byte[] {0, 0, 0, 1})))).size());
        assertEquals(10, rows(new RandomRowFilter(1.0f)).size());
        assertEquals(0, rows(new RandomRowFilter(0.0f)).size());
    }

    @Test
    void columnFilters() throws Exception {
        Result r = scan(new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(b("other")))).get(0);
        assertEquals(1, r.size());
        Result quals = scan(new QualifierFilter(CompareOperator.EQUAL, new BinaryPrefixComparator(b("q")))).get(0);
        assertEquals(5, quals.size());
        assertEquals(5, scan(new ColumnPrefixFilter(b("q"))).get(0).size());
        assertEquals(6, scan(new MultipleColumnPrefixFilter(new byte[][] {b("q"), b("name")})).get(0).size());
        Result range = scan(new ColumnRangeFilter(b("q1"), true, b("q3"), false)).get(0);
        assertEquals(2, range.size());
        Result page = scan(new ColumnPaginationFilter(2, 1)).get(0);
        assertEquals(2, page.size());
        assertEquals("flag", s(CellUtil.cloneQualifier(page.rawCells()[0])));
        Result byQualifier = scan(new ColumnPaginationFilter(2, b("q2"))).get(0);
        assertEquals(2, byQualifier.size());
        assertEquals(1, scan(new FirstKeyOnlyFilter()).get(0).size());
        Result keysOnly = scan(new KeyOnlyFilter()).get(0);
        assertEquals(0, keysOnly.getValue(b("cf"), b("name")).length);
        Result lengths = scan(new KeyOnlyFilter(true)).get(0);
        assertEquals(5, Bytes.toInt(lengths.getValue(b("cf"), b("name"))));
        try (Table t = Basalt.connection().getTable(name)) {
            Result counted = t.get(new Get(b("row1")).setFilter(new ColumnCountGetFilter(3)));
            assertEquals(3, counted.size());
        }
    }

    @Test
    void timestampsFilterKeepsThoseStamps() throws Exception {
        List<Result> kept = scan(new TimestampsFilter(List.of(103L, 105L)));
        assertEquals(2, kept.size());
        assertEquals("row3", s(kept.get(0).getRow()));
        assertEquals(10, kept.get(0).size());
    }

    @Test
    void valueFiltersAndComparators() throws Exception {
        assertEquals(rows(4), rows(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("name4")))));
        assertEquals(rows(1, 3, 5, 7, 9), rows(new SingleColumnValueFilter(b("cf"), b("flag"), CompareOperator.EQUAL,
            new BitComparator(new byte[] {1}, BitComparator.BitwiseOp.AND))));
        assertEquals(rows(0, 2, 4, 6, 8), rows(new SingleColumnValueFilter(b("cf"), b("flag"), CompareOperator.NOT_EQUAL,
            new BitComparator(new byte[] {1}, BitComparator.BitwiseOp.AND))));
        assertEquals(rows(7, 8, 9), rows(new SingleColumnValueFilter(b("cf"), b("n"), CompareOperator.GREATER,
            new LongComparator(6))));
        assertEquals(rows(0, 1), rows(new SingleColumnValueFilter(b("cf"), b("d"), CompareOperator.LESS,
            new BigDecimalComparator(new BigDecimal(2)))));
        assertEquals(rows(5), rows(new SingleColumnValueFilter(b("cf"), b("name"), CompareOperator.EQUAL,
            new RegexStringComparator("^name5$"))));
        // A missing column passes unless told otherwise.
        SingleColumnValueFilter missing = new SingleColumnValueFilter(b("cf"), b("absent"), CompareOperator.EQUAL, b("x"));
        assertEquals(10, rows(missing).size());
        missing.setFilterIfMissing(true);
        assertEquals(0, rows(missing).size());
        SingleColumnValueExcludeFilter exclude = new SingleColumnValueExcludeFilter(b("cf"), b("name"),
            CompareOperator.EQUAL, b("name2"));
        List<Result> excluded = scan(exclude);
        assertEquals(1, excluded.size());
        assertEquals(null, excluded.get(0).getValue(b("cf"), b("name")));
        assertEquals(9, excluded.get(0).size());
        List<Result> columnValue = scan(new ColumnValueFilter(b("cf"), b("name"), CompareOperator.EQUAL, b("name6")));
        assertEquals(1, columnValue.size());
        assertEquals(1, columnValue.get(0).size());
        assertEquals(10, rows(new ValueFilter(CompareOperator.NOT_EQUAL, new NullComparator())).size());
        // BinaryComponentComparator: the bytes at an offset of the value.
        assertEquals(rows(3), rows(new ValueFilter(CompareOperator.EQUAL, new BinaryComponentComparator(b("e3"), 3))));
        List<Result> dependent = scan(new DependentColumnFilter(b("cf"), b("name"), true));
        assertEquals(10, dependent.size());
        assertEquals(null, dependent.get(0).getValue(b("cf"), b("name")));
    }

    @Test
    void wrappingFilters() throws Exception {
        // Skip: a row goes when any cell fails; WhileMatch: the scan ends at the first failure.
        assertEquals(rows(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), rows(new SkipFilter(new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(b("zzz"))))));
        assertEquals(0, rows(new SkipFilter(new ValueFilter(CompareOperator.EQUAL, new BinaryComparator(b("v"))))).size());
        assertEquals(rows(0, 1, 2), rows(new WhileMatchFilter(new RowFilter(CompareOperator.LESS, new BinaryComparator(b("row3"))))));
        assertEquals(rows(0, 1, 2), rows(new PageFilter(3)).subList(0, 3));
        List<String> paged = rows(new PageFilter(3));
        assertTrue(paged.size() >= 3 && paged.size() <= 6, "a page per region: " + paged);
        assertEquals(rows(0, 1, 2), scan(new Scan().setFilter(new PageFilter(3)).setLimit(3)).stream().map(r -> s(r.getRow())).toList());
    }

    @Test
    void filterListsNest() throws Exception {
        FilterList either = new FilterList(FilterList.Operator.MUST_PASS_ONE,
            new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("row1"))),
            new RowFilter(CompareOperator.EQUAL, new BinaryComparator(b("row8"))));
        assertEquals(rows(1, 8), rows(either));
        FilterList both = new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new PrefixFilter(b("row")),
            new SingleColumnValueFilter(b("cf"), b("n"), CompareOperator.LESS, new LongComparator(4)),
            either);
        assertEquals(rows(1), rows(both));
        FilterList columns = new FilterList(FilterList.Operator.MUST_PASS_ALL,
            new FamilyFilter(CompareOperator.EQUAL, new BinaryComparator(b("cf"))),
            new FilterList(FilterList.Operator.MUST_PASS_ONE, new ColumnPrefixFilter(b("q1")), new ColumnPrefixFilter(b("name"))));
        Result r = scan(columns).get(0);
        assertEquals(2, r.size());
        FilterList empty = new FilterList();
        assertEquals(10, rows(empty).size());
        // What YCSB sends for a scan: a FilterList holding a PageFilter.
        FilterList ycsb = new FilterList(new PageFilter(4));
        assertEquals(rows(0, 1, 2, 3), scan(new Scan().withStartRow(b("row0")).setFilter(ycsb).setCaching(4).setLimit(4))
            .stream().map(x -> s(x.getRow())).toList());
    }
}
