package basalt.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The Basalt this suite runs against: its ZooKeeper quorum comes from {@code BASALT_ZK}
 * ("host:port"), set by the Rust test that started the server. Every test makes tables of
 * its own, named after it, so tests never see each other's data.
 */
final class Basalt {
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static Connection shared;

    private Basalt() {}

    static String quorum() {
        String zk = System.getenv("BASALT_ZK");
        if (zk == null || zk.isEmpty()) {
            throw new IllegalStateException("BASALT_ZK is not set: run this suite through tests/java/run.sh");
        }
        return zk;
    }

    /** What a user writes: the quorum and nothing else. */
    static Configuration conf() {
        Configuration conf = HBaseConfiguration.create();
        conf.set("hbase.zookeeper.quorum", quorum());
        return conf;
    }

    /** One connection for the whole suite, as an application holds one. */
    static synchronized Connection connection() throws IOException {
        if (shared == null || shared.isClosed()) {
            shared = ConnectionFactory.createConnection(conf());
        }
        return shared;
    }

    /** A table name no other test uses. */
    static TableName table(String purpose) {
        return TableName.valueOf("j" + TABLES.incrementAndGet() + "_" + purpose + "_" + System.nanoTime() % 100000);
    }

    /** Creates {@code name} with these families (split at {@code splits}, if any). */
    static TableName create(TableName name, String[] families, byte[]... splits) throws IOException {
        TableDescriptorBuilder table = TableDescriptorBuilder.newBuilder(name);
        for (String family : families) {
            table.setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(family)).setMaxVersions(5).build());
        }
        try (Admin admin = connection().getAdmin()) {
            if (splits.length == 0) {
                admin.createTable(table.build());
            } else {
                admin.createTable(table.build(), splits);
            }
        }
        return name;
    }

    static TableName create(String purpose, String... families) throws IOException {
        return create(table(purpose), families);
    }

    /** Every result of {@code scan} over {@code name}, in order. */
    static List<Result> scanAll(TableName name, Scan scan) throws IOException {
        List<Result> out = new ArrayList<>();
        try (Table t = connection().getTable(name); ResultScanner rs = t.getScanner(scan)) {
            for (Result r : rs) {
                out.add(r);
            }
        }
        return out;
    }

    static byte[] b(String s) {
        return Bytes.toBytes(s);
    }

    static String s(byte[] b) {
        return b == null ? null : Bytes.toString(b);
    }
}
