package basalt.it;

import static basalt.it.Basalt.b;
import static basalt.it.Basalt.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.AdvancedScanResultConsumer;
import org.apache.hadoop.hbase.client.AsyncAdmin;
import org.apache.hadoop.hbase.client.AsyncConnection;
import org.apache.hadoop.hbase.client.AsyncTable;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.ScanResultConsumer;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/** The BufferedMutator, the async API, snapshots and the exceptions a Java caller catches. */
class ClientTest {
    @Test
    void theBufferedMutatorWritesEverythingOnFlushAndClose() throws Exception {
        TableName name = Basalt.create(Basalt.table("mutator"), new String[] {"cf"}, b("row0500"));
        List<RetriesExhaustedWithDetailsException> errors = new ArrayList<>();
        BufferedMutatorParams params = new BufferedMutatorParams(name).writeBufferSize(64 * 1024)
            .listener((e, mutator) -> errors.add(e));
        try (BufferedMutator m = Basalt.connection().getBufferedMutator(params)) {
            for (int i = 0; i < 1000; i++) {
                m.mutate(new Put(b(String.format("row%04d", i))).addColumn(b("cf"), b("q"), new byte[100]));
            }
            m.flush();
            try (Table t = Basalt.connection().getTable(name)) {
                assertEquals(100, t.get(new Get(b("row0999"))).value().length);
            }
            for (int i = 1000; i < 1100; i++) {
                m.mutate(new Put(b(String.format("row%04d", i))).addColumn(b("cf"), b("q"), b("late")));
            }
        }
        assertTrue(errors.isEmpty(), errors.toString());
        int rows = 0;
        try (Table t = Basalt.connection().getTable(name); ResultScanner rs = t.getScanner(new Scan())) {
            for (Result r : rs) {
                rows++;
            }
        }
        assertEquals(1100, rows);
    }

    @Test
    void theAsyncApi() throws Exception {
        try (AsyncConnection conn = ConnectionFactory.createAsyncConnection(Basalt.conf()).get()) {
            AsyncAdmin admin = conn.getAdmin();
            TableName name = Basalt.table("async");
            admin.createTable(TableDescriptorBuilder.newBuilder(name).setColumnFamily(ColumnFamilyDescriptorBuilder.of("cf")).build(),
                new byte[][] {b("m")}).get();
            assertTrue(admin.tableExists(name).get());
            AsyncTable<ScanResultConsumer> table = conn.getTable(name, java.util.concurrent.ForkJoinPool.commonPool());
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                puts.add(table.put(new Put(b("k" + (char) ('a' + i % 26) + i)).addColumn(b("cf"), b("q"), b("v" + i))));
            }
            CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get();
            assertEquals(50, table.scanAll(new Scan()).get().size());
            assertEquals(3L, table.incrementColumnValue(b("n"), b("cf"), b("c"), 3L).get());
            assertTrue(table.exists(new Get(b("n"))).get());
            List<Result> batch = table.getAll(List.of(new Get(b("ka0")), new Get(b("kz25")))).get();
            assertEquals("v0", s(batch.get(0).value()));
            assertEquals("v25", s(batch.get(1).value()));
            // The raw table's scan, with its own consumer.
            AsyncTable<AdvancedScanResultConsumer> raw = conn.getTable(name);
            List<Result> seen = new ArrayList<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            raw.scan(new Scan().setCaching(7), new AdvancedScanResultConsumer() {
                @Override
                public void onNext(Result[] results, ScanController controller) {
                    seen.addAll(List.of(results));
                }

                @Override
                public void onError(Throwable error) {
                    done.completeExceptionally(error);
                }

                @Override
                public void onComplete() {
                    done.complete(null);
                }
            });
            done.get();
            assertEquals(51, seen.size());
            assertEquals(2, admin.getRegions(name).get().size());
            assertFalse(admin.listTableNames().get().isEmpty());
            admin.disableTable(name).get();
            admin.deleteTable(name).get();
            assertFalse(admin.tableExists(name).get());
        }
    }

    @Test
    void snapshotsCloneAndRestore() throws Exception {
        TableName name = Basalt.create("snap", "cf");
        try (Admin admin = Basalt.connection().getAdmin(); Table t = Basalt.connection().getTable(name)) {
            t.put(new Put(b("a")).addColumn(b("cf"), b("q"), b("before")));
            String snapshot = name.getNameAsString() + "_s";
            admin.snapshot(snapshot, name);
            assertTrue(admin.listSnapshots().stream().anyMatch(d -> d.getName().equals(snapshot)));
            t.put(new Put(b("a")).addColumn(b("cf"), b("q"), b("after")));
            TableName clone = TableName.valueOf(name.getNameAsString() + "_clone");
            admin.cloneSnapshot(snapshot, clone);
            try (Table c = Basalt.connection().getTable(clone)) {
                assertEquals("before", s(c.get(new Get(b("a"))).value()));
            }
            admin.disableTable(name);
            assertTrue(admin.isTableDisabled(name), "disabled before the restore");
            admin.restoreSnapshot(snapshot);
            admin.enableTable(name);
            assertEquals("before", s(t.get(new Get(b("a"))).value()));
            admin.deleteSnapshot(snapshot);
            assertFalse(admin.listSnapshots().stream().anyMatch(d -> d.getName().equals(snapshot)));
        }
    }

    @Test
    void theExceptionsAJavaCallerCatches() throws Exception {
        TableName name = Basalt.create("errors", "cf");
        try (Admin admin = Basalt.connection().getAdmin()) {
            TableName missing = TableName.valueOf("no_such_table_here");
            assertThrows(TableNotFoundException.class, () -> admin.disableTable(missing));
            assertThrows(TableNotFoundException.class, () -> admin.getDescriptor(missing));
        }
        try (Table t = Basalt.connection().getTable(name)) {
            // A family the table lacks: NoSuchColumnFamilyException (a DoNotRetryIOException),
            // inside RetriesExhaustedWithDetailsException for a batch.
            Put bad = new Put(b("r")).addColumn(b("nope"), b("q"), b("v"));
            Exception single = assertThrows(Exception.class, () -> t.put(bad));
            assertTrue(hasCause(single, NoSuchColumnFamilyException.class), single.toString());
            assertTrue(hasCause(single, DoNotRetryIOException.class), single.toString());
            RetriesExhaustedWithDetailsException batch = assertThrows(RetriesExhaustedWithDetailsException.class,
                () -> t.batch(List.of(bad, new Put(b("ok")).addColumn(b("cf"), b("q"), b("v"))), new Object[2]));
            assertEquals(1, batch.getNumExceptions());
            assertTrue(batch.getCause(0) instanceof NoSuchColumnFamilyException, batch.getCause(0).toString());
            assertEquals("v", Bytes.toString(t.get(new Get(b("ok"))).value()), "the good action of the batch applied");
        }
    }

    private static boolean hasCause(Throwable t, Class<?> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aMissingTableFromTheAsyncClient() throws Exception {
        try (AsyncConnection conn = ConnectionFactory.createAsyncConnection(Basalt.conf()).get()) {
            ExecutionException e = assertThrows(ExecutionException.class,
                () -> conn.getTable(TableName.valueOf("no_such_async_table")).get(new Get(b("r"))).get());
            assertTrue(e.getCause() instanceof TableNotFoundException, e.getCause().toString());
        }
    }
}
