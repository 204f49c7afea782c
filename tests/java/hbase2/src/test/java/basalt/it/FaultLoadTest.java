package basalt.it;

import static basalt.it.Basalt.b;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

/**
 * A client that keeps writing and reading while the cluster under it moves, splits and loses
 * regions (the Rust side, crates/cli/tests/java.rs, makes those faults meanwhile). Runs only
 * when BASALT_FAULT_TABLE names the table; with the client's default settings, every
 * acknowledged write must read back.
 */
class FaultLoadTest {
    @Test
    void everyAcknowledgedWriteReadsBackThroughMovesSplitsAndACrash() throws Exception {
        String table = System.getenv("BASALT_FAULT_TABLE");
        assumeTrue(table != null && !table.isEmpty(), "only under the fault test");
        long seconds = Long.parseLong(System.getenv().getOrDefault("BASALT_FAULT_SECONDS", "30"));
        TableName name = TableName.valueOf(table);
        Basalt.create(name, new String[] {"cf"}, b("r3"), b("r6"));
        List<String> acked = new ArrayList<>();
        Random random = new Random(7);
        long reads = 0;
        long deadline = System.currentTimeMillis() + seconds * 1000;
        try (Table t = Basalt.connection().getTable(name)) {
            // Bounded by time and by count.
            for (int i = 0; i < 1_000_000 && System.currentTimeMillis() < deadline; i++) {
                // Spread over the regions: the first digit picks one.
                String row = "r" + (i % 10) + String.format("%07d", i);
                t.put(new Put(b(row)).addColumn(b("cf"), b("q"), b("v" + i)));
                acked.add(row);
                if (i % 5 == 0) {
                    String back = acked.get(random.nextInt(acked.size()));
                    Result r = t.get(new Get(b(back)));
                    assertTrue(!r.isEmpty(), "acknowledged " + back + " reads back while the faults go on");
                    reads++;
                }
            }
            int missing = 0;
            for (String row : acked) {
                Result r = t.get(new Get(b(row)));
                if (r.isEmpty() || !Bytes.toString(r.value()).equals("v" + Integer.parseInt(row.substring(2)))) {
                    missing++;
                }
            }
            System.out.println("fault load: " + acked.size() + " writes acknowledged, " + reads + " reads, "
                + missing + " missing");
            assertEquals(0, missing, "acknowledged writes missing");
            assertTrue(acked.size() > 100, "too few writes: " + acked.size());
        }
    }
}
