package basalt.ycsb;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.filter.PageFilter;
import org.apache.hadoop.hbase.util.Bytes;

import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB's DB over HBase's Java client, as YCSB's HBase 2 binding behaves: one connection
 * shared by every client thread, a Table (or, with {@code clientbuffering=true}, a
 * BufferedMutator of {@code writebuffersize} bytes) per thread; reads by family or by the
 * named columns; scans from the start key with caching and a PageFilter of the record count
 * ({@code hbase.usepagefilter}); {@code durability=false} writes without the WAL. Properties:
 * {@code columnfamily} (required), and any {@code hbase.*} setting, e.g.
 * {@code hbase.zookeeper.quorum}.
 */
public final class HBaseClient extends DB {
  private static final Object LOCK = new Object();
  private static Connection shared;
  private static int users;

  private byte[] family;
  private boolean buffering;
  private boolean pageFilter;
  private Durability durability = Durability.USE_DEFAULT;
  private Table table;
  private BufferedMutator mutator;
  private String tableName;

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    String cf = p.getProperty("columnfamily");
    if (cf == null) {
      throw new DBException("columnfamily must be set (the table's family, e.g. -p columnfamily=family)");
    }
    family = Bytes.toBytes(cf);
    buffering = Boolean.parseBoolean(p.getProperty("clientbuffering", "false"));
    pageFilter = Boolean.parseBoolean(p.getProperty("hbase.usepagefilter", "true"));
    if ("false".equals(p.getProperty("durability"))) {
      durability = Durability.SKIP_WAL;
    }
    Configuration conf = HBaseConfiguration.create();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("hbase.") && !key.equals("hbase.usepagefilter")) {
        conf.set(key, p.getProperty(key));
      }
    }
    synchronized (LOCK) {
      try {
        if (shared == null) {
          shared = ConnectionFactory.createConnection(conf);
        }
        users++;
      } catch (IOException e) {
        throw new DBException(e);
      }
    }
  }

  private void open(String name) throws IOException {
    if (name.equals(tableName)) {
      return;
    }
    close();
    tableName = name;
    table = shared.getTable(TableName.valueOf(name));
    if (buffering) {
      long size = Long.parseLong(getProperties().getProperty("writebuffersize", String.valueOf(12 * 1024 * 1024)));
      mutator = shared.getBufferedMutator(new BufferedMutatorParams(TableName.valueOf(name)).writeBufferSize(size));
    }
  }

  private void close() throws IOException {
    if (mutator != null) {
      mutator.close();
      mutator = null;
    }
    if (table != null) {
      table.close();
      table = null;
    }
    tableName = null;
  }

  @Override
  public void cleanup() throws DBException {
    try {
      close();
      synchronized (LOCK) {
        users--;
        if (users == 0 && shared != null) {
          shared.close();
          shared = null;
        }
      }
    } catch (IOException e) {
      throw new DBException(e);
    }
  }

  private static void copy(Result r, Map<String, ByteIterator> into) {
    for (Cell c : r.rawCells()) {
      into.put(Bytes.toString(CellUtil.cloneQualifier(c)), new ByteArrayByteIterator(CellUtil.cloneValue(c)));
    }
  }

  @Override
  public Status read(String name, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      open(name);
      Get get = new Get(Bytes.toBytes(key));
      if (fields == null) {
        get.addFamily(family);
      } else {
        for (String f : fields) {
          get.addColumn(family, Bytes.toBytes(f));
        }
      }
      Result r = table.get(get);
      if (r.isEmpty()) {
        return Status.NOT_FOUND;
      }
      copy(r, result);
      return Status.OK;
    } catch (IOException e) {
      System.err.println("read " + key + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status scan(String name, String start, int count, Set<String> fields,
      Vector<HashMap<String, ByteIterator>> result) {
    Scan scan = new Scan().withStartRow(Bytes.toBytes(start)).setCaching(count);
    if (pageFilter) {
      scan.setFilter(new PageFilter(count));
    }
    if (fields == null) {
      scan.addFamily(family);
    } else {
      for (String f : fields) {
        scan.addColumn(family, Bytes.toBytes(f));
      }
    }
    try {
      open(name);
      try (ResultScanner scanner = table.getScanner(scan)) {
        for (Result r = scanner.next(); r != null && result.size() < count; r = scanner.next()) {
          HashMap<String, ByteIterator> row = new HashMap<>();
          copy(r, row);
          result.add(row);
        }
      }
      return Status.OK;
    } catch (IOException e) {
      System.err.println("scan " + start + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String name, String key, Map<String, ByteIterator> values) {
    Put put = new Put(Bytes.toBytes(key));
    put.setDurability(durability);
    for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
      put.addColumn(family, Bytes.toBytes(e.getKey()), e.getValue().toArray());
    }
    try {
      open(name);
      if (mutator != null) {
        mutator.mutate(put);
      } else {
        table.put(put);
      }
      return Status.OK;
    } catch (IOException e) {
      System.err.println("write " + key + ": " + e);
      return Status.ERROR;
    }
  }

  @Override
  public Status insert(String name, String key, Map<String, ByteIterator> values) {
    return update(name, key, values);
  }

  @Override
  public Status delete(String name, String key) {
    Delete delete = new Delete(Bytes.toBytes(key));
    delete.setDurability(durability);
    try {
      open(name);
      if (mutator != null) {
        mutator.mutate(delete);
      } else {
        table.delete(delete);
      }
      return Status.OK;
    } catch (IOException e) {
      System.err.println("delete " + key + ": " + e);
      return Status.ERROR;
    }
  }
}
