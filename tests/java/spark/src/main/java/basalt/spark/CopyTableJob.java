package basalt.spark;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.io.ImmutableBytesWritable;
import org.apache.hadoop.hbase.mapreduce.TableInputFormat;
import org.apache.hadoop.hbase.mapreduce.TableOutputFormat;
import org.apache.hadoop.mapreduce.Job;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

import scala.Tuple2;

/**
 * Reads a table through TableInputFormat (one partition per region), counts its rows per
 * partition, and writes every cell into a second table through TableOutputFormat:
 * {@code CopyTableJob -Dhbase.zookeeper.quorum=HOST:PORT SOURCE DESTINATION}. Prints
 * {@code partitions=N}, {@code rows=N} and {@code rows per partition=[...]}.
 */
public final class CopyTableJob {
  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    List<String> rest = new ArrayList<>();
    for (String arg : args) {
      if (arg.startsWith("-D") && arg.contains("=")) {
        String[] kv = arg.substring(2).split("=", 2);
        conf.set(kv[0], kv[1]);
      } else {
        rest.add(arg);
      }
    }
    if (rest.size() != 2) {
      System.err.println("usage: CopyTableJob [-Dkey=value...] SOURCE DESTINATION");
      System.exit(2);
    }
    String source = rest.get(0);
    String destination = rest.get(1);
    SparkSession spark =
        SparkSession.builder()
            .appName("basalt-copy-table")
            .master("local[2]")
            // On the loopback only, and no web UI.
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            // A region's size reaches TableInputFormat in whole megabytes (RegionLoad's
            // storefile_size_MB and memstore_size_MB, from HBase and Basalt alike), and Spark
            // 3.2+ drops splits of length 0: without this, a region under 1 MB is never read.
            .config("spark.hadoopRDD.ignoreEmptySplits", "false")
            .getOrCreate();
    try (JavaSparkContext context = new JavaSparkContext(spark.sparkContext())) {
      Configuration in = new Configuration(conf);
      in.set(TableInputFormat.INPUT_TABLE, source);
      JavaPairRDD<ImmutableBytesWritable, Result> rows =
          context.newAPIHadoopRDD(
              in, TableInputFormat.class, ImmutableBytesWritable.class, Result.class);
      System.out.println("partitions=" + rows.getNumPartitions());
      List<Integer> perPartition =
          rows.mapPartitions(
                  it -> {
                    int n = 0;
                    while (it.hasNext()) {
                      it.next();
                      n++;
                    }
                    return List.of(n).iterator();
                  })
              .collect();
      System.out.println("rows per partition=" + perPartition);
      System.out.println("rows=" + perPartition.stream().mapToInt(Integer::intValue).sum());

      Job job = Job.getInstance(new Configuration(conf));
      job.getConfiguration().set(TableOutputFormat.OUTPUT_TABLE, destination);
      job.setOutputFormatClass(TableOutputFormat.class);
      job.setOutputKeyClass(ImmutableBytesWritable.class);
      job.setOutputValueClass(Put.class);
      rows.mapToPair(
              row -> {
                Result result = row._2();
                Put put = new Put(result.getRow());
                for (Cell cell : result.rawCells()) {
                  put.addColumn(
                      CellUtil.cloneFamily(cell),
                      CellUtil.cloneQualifier(cell),
                      cell.getTimestamp(),
                      CellUtil.cloneValue(cell));
                }
                return new Tuple2<>(new ImmutableBytesWritable(result.getRow()), put);
              })
          .saveAsNewAPIHadoopDataset(job.getConfiguration());
      System.out.println("copied into " + destination);
    } finally {
      spark.stop();
    }
  }
}
