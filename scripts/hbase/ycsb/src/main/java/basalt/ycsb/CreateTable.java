package basalt.ycsb;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Creates YCSB's table as HBase's YCSB guide advises, the same on every server measured:
 * {@code CreateTable QUORUM TABLE FAMILY REGIONS} drops the table if it exists, then creates
 * it with one family and REGIONS regions split evenly over {@code user1000..user9999}
 * (YCSB's keys), so that neither server splits during a run.
 */
public final class CreateTable {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: CreateTable QUORUM TABLE FAMILY REGIONS");
      System.exit(2);
    }
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", args[0]);
    TableName name = TableName.valueOf(args[1]);
    int regions = Integer.parseInt(args[3]);
    byte[][] splits = new byte[regions - 1][];
    for (int i = 1; i < regions; i++) {
      splits[i - 1] = Bytes.toBytes("user" + (1000 + i * (9999 - 1000) / regions));
    }
    try (Connection conn = ConnectionFactory.createConnection(conf); Admin admin = conn.getAdmin()) {
      if (admin.tableExists(name)) {
        if (admin.isTableEnabled(name)) {
          admin.disableTable(name);
        }
        admin.deleteTable(name);
      }
      admin.createTable(
          TableDescriptorBuilder.newBuilder(name)
              .setColumnFamily(ColumnFamilyDescriptorBuilder.of(args[2]))
              .build(),
          splits);
      System.out.println("created " + name + " with " + regions + " regions");
    }
  }
}
