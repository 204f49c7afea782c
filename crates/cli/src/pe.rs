//! `basalt pe`: HBase's PerformanceEvaluation for Basalt. Each command runs `--threads`
//! clients, each doing `--rows` operations against one table, and reports the throughput and
//! the latency distribution (an HDR histogram: p50, p95, p99, p99.9, max), with a progress
//! bar on stderr and `--json` for machines. Operations go through a [`Backend`]: the
//! embedded engine, a server's Thrift1 gateway (`pe/remote.rs`), its native RPC
//! (`pe/native.rs`, `pe/asynchronous.rs`), a key layout (`pe/laid.rs`), or RocksDB as the
//! peer (`pe/rocks.rs`, behind a feature); `pe/ycsb.rs` runs YCSB's workloads and
//! `pe/plot.rs` charts the JSON.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Compression, Connection, Durability, Get, Put, Scan,
    TableDescriptor, TableName,
};
use hdrhistogram::Histogram;

mod asynchronous;
mod laid;
mod native;
pub mod plot;
mod remote;
#[cfg(feature = "rocksdb")]
mod rocks;
mod ycsb;

/// HBase PE's row keys: the row number as 26 zero-padded decimal digits.
const KEY_DIGITS: usize = 26;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Command {
    /// Puts rows 0..N in order.
    #[value(name = "sequentialWrite")]
    SequentialWrite,
    /// Puts N rows chosen at random from 0..N x threads.
    #[value(name = "randomWrite")]
    RandomWrite,
    /// Gets rows 0..N in order.
    #[value(name = "sequentialRead")]
    SequentialRead,
    /// Gets N random rows.
    #[value(name = "randomRead")]
    RandomRead,
    /// Scans of 10 rows from random start rows.
    #[value(name = "scanRange10")]
    ScanRange10,
    /// Scans of 100 rows from random start rows.
    #[value(name = "scanRange100")]
    ScanRange100,
    /// Scans of 1000 rows from random start rows.
    #[value(name = "scanRange1000")]
    ScanRange1000,
    /// Increments of an 8-byte counter in `info:counter` of random rows.
    #[value(name = "increment")]
    Increment,
    /// A YCSB core workload (`--workload a`..`f`): a load phase, then a run phase, on table
    /// `usertable` with family `family`.
    #[value(name = "ycsb")]
    Ycsb,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Commands to run, in order, on one connection (e.g. `sequentialWrite randomRead`).
    #[arg(required = true)]
    pub commands: Vec<Command>,
    /// Operations per client thread (HBase PE's `--rows`).
    #[arg(long, default_value_t = 1_048_576)]
    pub rows: u64,
    /// Client threads (HBase PE's `nclients`).
    #[arg(long, default_value_t = 1)]
    pub threads: u64,
    /// Bytes per value (HBase PE's `--valueSize`).
    #[arg(long, default_value_t = 1000)]
    pub value_size: usize,
    /// Column families per row (`info`, `info1`, ...).
    #[arg(long, default_value_t = 1)]
    pub families: usize,
    /// Columns per family (qualifiers `0`, `1`, ...).
    #[arg(long, default_value_t = 1)]
    pub columns: usize,
    /// Durability of writes: SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL.
    #[arg(long, default_value = "SYNC_WAL")]
    pub durability: String,
    /// Compression of the table's families: NONE, SNAPPY, LZ4, ZSTD, GZ.
    #[arg(long, default_value = "NONE")]
    pub compression: String,
    /// Data block size of the table's families (HBase's BLOCKSIZE), and of RocksDB's blocks
    /// with --compare-rocksdb: small blocks suit random point reads, large ones scans
    #[arg(long, default_value_t = 65536, value_parser = clap::value_parser!(u32).range(1024..=16 << 20))]
    pub block_size: u32,
    /// Block cache bytes (default: the engine's, a quarter of memory).
    #[arg(long)]
    pub block_cache: Option<u64>,
    /// Bytes all memstores may hold together (default: the engine's, a quarter of memory)
    #[arg(long)]
    pub memstore_limit: Option<u64>,
    /// Read store files (and RocksDB's SSTs, with --compare-rocksdb) around the page cache,
    /// with direct I/O: only the block cache holds what was read
    #[arg(long)]
    pub direct_reads: bool,
    /// The embedded engine's store files on an object store (see `basalt standalone`)
    #[command(flatten)]
    pub storage: crate::storage::StorageArgs,
    /// Regions to pre-split the table into (HexString-free: split evenly over the row keys).
    #[arg(long, default_value_t = 1)]
    pub presplit: u64,
    /// Puts per `put_all` call (1: one put at a time).
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// `false`: writes go through a `BufferedMutator` per client thread (HBase's 2 MiB write
    /// buffer, sent in the background), as HBase PE's `--autoFlush=false`, which is HBase's
    /// default; here the default is `true`, each put sent as it is made. Embedded and `--rpc`.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set)]
    pub auto_flush: bool,
    /// Table name.
    #[arg(long, default_value = "TestTable")]
    pub table: String,
    /// Run through the key-layout client on a table with this layout (`SALT BUCKETS=16`,
    /// `HASH_PREFIX BYTES=4`, ...; `NONE`: a plain table through the same client), embedded or
    /// with --rpc / --zookeeper
    #[arg(long)]
    pub key_layout: Option<String>,
    /// The rows `--presplit` spreads its split keys over, and random reads, scans, writes and
    /// increments pick from [default: --rows x --threads]; a larger space leaves the rows a
    /// run writes in its first regions, as a table pre-split for a year of time-stamped keys
    /// takes this hour's rows in one region; a run of fewer reads than the table's rows
    /// still reads all over it
    #[arg(long)]
    pub key_space: Option<u64>,
    /// sequentialWrite: the threads share one increasing sequence of rows (row i*threads+t),
    /// as many writers stamping keys with the time do, instead of each its own range
    #[arg(long)]
    pub interleave: bool,
    /// Data directory of the embedded engine (kept, so a later run can read what this one
    /// wrote).
    #[arg(long, default_value = "./basalt-pe-data")]
    pub dir: PathBuf,
    /// Keep everything in memory (no data directory, no WAL).
    #[arg(long)]
    pub in_memory: bool,
    /// Print one JSON object per command on stdout instead of the text report.
    #[arg(long)]
    pub json: bool,
    /// Seed of the random row choices.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// YCSB: the core workload, a to f.
    #[arg(long, default_value = "a")]
    pub workload: char,
    /// YCSB: records loaded (YCSB's `recordcount`).
    #[arg(long, default_value_t = 100_000)]
    pub records: u64,
    /// YCSB: operations of the run phase (YCSB's `operationcount`).
    #[arg(long, default_value_t = 100_000)]
    pub operations: u64,
    /// YCSB: stop the run phase after this many seconds even if operations remain.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// YCSB: request distribution `uniform` instead of the workload's own (zipfian or latest).
    #[arg(long)]
    pub uniform: bool,
    /// YCSB: skip the load phase (the records are there from an earlier run).
    #[arg(long)]
    pub skip_load: bool,
    /// Run every command on RocksDB too (data in `<dir>-rocksdb`), in the same run, and print
    /// Basalt / RocksDB throughput ratios. Needs a build with `--features rocksdb`.
    #[arg(long)]
    pub compare_rocksdb: bool,
    /// Run the commands on the RocksDB comparator alone (data in `<dir>-rocksdb`), not on
    /// Basalt: each engine in a process of its own, so a memory limit on the process holds
    /// one engine, not both. Needs a build with `--features rocksdb`.
    #[arg(long, conflicts_with = "compare_rocksdb")]
    pub rocksdb_only: bool,
    /// The RocksDB comparator's layout: `cells` (a key per cell, as Basalt stores them) or
    /// `rows` (a key per row, its columns one value, updates merged)
    #[cfg(feature = "rocksdb")]
    #[arg(long, value_enum, default_value = "cells")]
    pub rocksdb_layout: rocks::RocksLayout,
    /// Remote mode: run against a server's Thrift1 gateway at HOST:PORT instead of an
    /// embedded engine (e.g. `--thrift 127.0.0.1:9090` with `basalt standalone` running).
    #[arg(long)]
    pub thrift: Option<std::net::SocketAddr>,
    /// Remote mode over HBase's native RPC at HOST:PORT (`basalt standalone --rpc-port`).
    #[arg(long, conflicts_with = "zookeeper")]
    pub rpc: Option<std::net::SocketAddr>,
    /// Remote mode against a cluster found through ZooKeeper at HOST:PORT (`basalt cluster
    /// start` prints it): each region's own server, over the native RPC.
    #[arg(long)]
    pub zookeeper: Option<String>,
    /// Native RPC: hold this many more connections to --rpc, idle (each past its preamble and
    /// connection header, as HBase's client leaves one), while the benchmark runs: what the
    /// server's throughput is while it holds them
    #[arg(long, default_value_t = 0, requires = "rpc")]
    pub idle_connections: usize,
    /// Native RPC: all client threads share one connection (HBase PE's `--oneCon`), their
    /// calls multiplexed on it; by default each thread has its own.
    #[arg(long)]
    pub one_con: bool,
    /// Native RPC through the async client: `--threads` requests in flight at once on one
    /// shared connection, as tasks on a tokio runtime instead of client threads
    #[arg(long)]
    pub async_client: bool,
    /// With --async-client: the tokio runtime's worker threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub async_workers: u16,
    /// Native RPC: connections to the server that a connection's client threads are dealt
    /// to, each keeping to its own (HBase's `hbase.client.ipc.pool.size`).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub ipc_pool_size: u16,
    /// Native RPC with Kerberos: the server's principal (`hbase/host@REALM`); the ticket comes
    /// from the credential cache (kinit, KRB5CCNAME). Needs a build with `--features kerberos`
    #[arg(long)]
    pub kerberos_principal: Option<String>,
    /// Native RPC over TLS: trust --tls-ca, show --tls-cert (the server then knows the
    /// benchmark by its certificate)
    #[command(flatten)]
    pub tls: crate::tls::TlsArgs,
    /// Remote mode: framed transport (the server's `--framed`).
    #[arg(long)]
    pub thrift_framed: bool,
    /// Remote mode: compact protocol (the server's `--compact`).
    #[arg(long)]
    pub thrift_compact: bool,
}

impl Args {
    /// `--durability`, parsed; the error names the flag.
    pub fn durability(&self) -> Result<Durability> {
        self.durability
            .parse()
            .with_context(|| format!("--durability {}", self.durability))
    }

    /// `--compression`, parsed; the error names the flag.
    pub fn compression(&self) -> Result<Compression> {
        self.compression
            .parse()
            .with_context(|| format!("--compression {}", self.compression))
    }
}

impl Command {
    /// The rows a scanRange command reads (0 for the others).
    pub fn scan_length(self) -> usize {
        match self {
            Command::ScanRange10 => 10,
            Command::ScanRange100 => 100,
            Command::ScanRange1000 => 1000,
            _ => 0,
        }
    }

    /// HBase PE's name of the command.
    pub fn name(self) -> &'static str {
        match self {
            Command::SequentialWrite => "sequentialWrite",
            Command::RandomWrite => "randomWrite",
            Command::SequentialRead => "sequentialRead",
            Command::RandomRead => "randomRead",
            Command::ScanRange10 => "scanRange10",
            Command::ScanRange100 => "scanRange100",
            Command::ScanRange1000 => "scanRange1000",
            Command::Increment => "increment",
            Command::Ycsb => "ycsb",
        }
    }
}

/// One cell to write: family, qualifier, value.
pub type CellSpec = (Bytes, Bytes, Bytes);

/// One row to write: its key and cells.
pub type RowSpec = (Bytes, Vec<CellSpec>);

/// What a benchmark drives: the embedded engine today, remote servers later.
pub trait Backend: Send + Sync {
    /// Writes rows (each atomically; the batch is not).
    fn put(&self, rows: &[RowSpec]) -> Result<()>;
    /// Writes some columns of existing rows (YCSB's update): a put, unless the backend has
    /// a cheaper way to change part of a row.
    fn update(&self, rows: &[RowSpec]) -> Result<()> {
        self.put(rows)
    }
    /// Reads one row; returns how many cells it had.
    fn get(&self, row: &[u8]) -> Result<usize>;
    /// Scans up to `rows` rows from `start`; returns how many it read.
    fn scan(&self, start: &[u8], rows: usize) -> Result<usize>;
    /// Adds 1 to the counter `family:qualifier` of `row`, atomically; returns the new value.
    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64>;
    /// One client thread's buffered writes (`--auto-flush false`).
    fn buffered(&self) -> Result<Buffered> {
        bail!("--auto-flush false needs the embedded engine or --rpc")
    }
}

/// One client thread's writes through a `BufferedMutator`, with the backend's durability.
pub struct Buffered {
    mutator: basalt_embedded::BufferedMutator,
    durability: Durability,
}

impl Buffered {
    pub fn new(
        client: Arc<dyn basalt_embedded::Client>,
        table: TableName,
        durability: Durability,
    ) -> Result<Buffered> {
        let params = basalt_embedded::BufferedMutatorParams::default();
        Ok(Buffered {
            mutator: basalt_embedded::BufferedMutator::new(client, table, params)?,
            durability,
        })
    }

    fn put(&mut self, rows: &[RowSpec]) -> Result<()> {
        let durability = self.durability;
        Ok(self
            .mutator
            .mutate_all(rows.iter().map(|r| put_of(r, durability)))?)
    }

    /// Sends what is still buffered and waits for it.
    fn close(self) -> Result<()> {
        Ok(self.mutator.close()?)
    }
}

/// The put that writes one benchmark row.
pub fn put_of((row, cells): &RowSpec, durability: Durability) -> Put {
    cells
        .iter()
        .fold(Put::new(row.clone()), |p, (f, q, v)| {
            p.add_column(f.clone(), q.clone(), v.clone())
        })
        .with_durability(durability)
}

/// The embedded engine, through the client API.
struct Embedded {
    conn: Connection,
    table: basalt_embedded::Table,
    durability: Durability,
}

impl Backend for Embedded {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        let puts: Vec<Put> = rows.iter().map(|r| put_of(r, self.durability)).collect();
        self.table
            .put_all(&puts)
            .map_err(|(i, e)| anyhow::anyhow!("put {i} of a batch failed: {e}"))
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        Ok(self
            .table
            .get(&Get::new(Bytes::copy_from_slice(row)))?
            .len())
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let scan = range_scan(start, rows);
        let mut n = 0;
        for r in self.table.scan(&scan)? {
            r?;
            n += 1;
        }
        Ok(n)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64> {
        Ok(self
            .table
            .increment_column_value(row, family, qualifier, 1)?)
    }

    fn buffered(&self) -> Result<Buffered> {
        let conn = Arc::new(self.conn.clone());
        Buffered::new(conn, self.table.name().clone(), self.durability)
    }
}

/// HBase PE's row key for row number `n`: its decimal digits, zero-padded to 26. Written
/// digit by digit: `format!` pads a character at a time, a tenth of a remote get's client
/// CPU.
pub fn row_key(mut n: u64) -> Bytes {
    // A u64 has at most 20 digits.
    let mut key = [b'0'; KEY_DIGITS];
    for digit in key.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    Bytes::copy_from_slice(&key)
}

/// xorshift64*: cheap, seedable, good enough to pick rows.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A float in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Runs `client(t)` for `t` in `0..threads`, each on its own thread, all at once; returns
/// every client's result, or the first error (a panicking client is an error too).
fn run_clients<T: Send>(threads: u64, client: impl Fn(u64) -> Result<T> + Sync) -> Result<Vec<T>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let client = &client;
                s.spawn(move || client(t))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a client thread panicked")))
            })
            .collect()
    })
}

/// An empty latency histogram, in microseconds from 1 to an hour, 3 significant digits.
/// (Bounds fixed up front: an auto-resizing histogram's `saturating_record` clamps instead of
/// growing, and recorded every latency above 2 ms as 2 us until 2026-11-26.)
pub(crate) fn latency_histogram() -> Result<Histogram<u64>> {
    Ok(Histogram::new_with_bounds(1, 3_600_000_000, 3)?)
}

/// Microseconds since `began`, as a latency histogram records them (at least 1).
fn micros_since(began: Instant) -> u64 {
    u64::try_from(began.elapsed().as_micros())
        .unwrap_or(u64::MAX)
        .max(1)
}

/// A latency histogram's percentiles, in microseconds, as every report prints them.
struct Latency<'h>(&'h Histogram<u64>);

impl Latency<'_> {
    fn values(&self) -> [u64; 5] {
        let h = self.0;
        [
            h.value_at_quantile(0.5),
            h.value_at_quantile(0.95),
            h.value_at_quantile(0.99),
            h.value_at_quantile(0.999),
            h.max(),
        ]
    }

    /// `latency us p50 N p95 N p99 N p99.9 N max N`
    fn text(&self) -> String {
        let [p50, p95, p99, p999, max] = self.values();
        format!("latency us p50 {p50} p95 {p95} p99 {p99} p99.9 {p999} max {max}")
    }

    /// `"latency_us":{"p50":N,"p95":N,"p99":N,"p99_9":N,"max":N}`
    fn json(&self) -> String {
        let [p50, p95, p99, p999, max] = self.values();
        format!(
            "\"latency_us\":{{\"p50\":{p50},\"p95\":{p95},\"p99\":{p99},\"p99_9\":{p999},\"max\":{max}}}"
        )
    }
}

/// The result of one command.
#[derive(Debug)]
pub struct Report {
    pub backend: &'static str,
    pub command: Command,
    pub ops: u64,
    pub seconds: f64,
    /// Latencies in microseconds.
    pub latency: Histogram<u64>,
    /// Cells (reads) or rows (scans) found, to tell an empty table from a fast one.
    pub found: u64,
}

impl Report {
    pub fn ops_per_second(&self) -> f64 {
        self.ops as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }

    pub fn text(&self) -> String {
        format!(
            "{}{}: {} ops in {:.2} s = {:.0} ops/s; {}; found {}",
            if self.backend == "basalt" {
                ""
            } else {
                "rocksdb "
            },
            self.command.name(),
            self.ops,
            self.seconds,
            self.ops_per_second(),
            Latency(&self.latency).text(),
            self.found
        )
    }

    pub fn json(&self) -> String {
        format!(
            "{{\"backend\":\"{}\",\"command\":\"{}\",\"ops\":{},\"seconds\":{:.6},\"ops_per_second\":{:.1},{},\"found\":{}}}",
            self.backend,
            self.command.name(),
            self.ops,
            self.seconds,
            self.ops_per_second(),
            Latency(&self.latency).json(),
            self.found
        )
    }
}

/// The cells of one row: every family x column, each a value of `value_size` bytes.
fn row_cells(args: &Args, value: &Bytes) -> Vec<CellSpec> {
    let mut cells = Vec::with_capacity(args.families * args.columns);
    for f in 0..args.families {
        for c in 0..args.columns {
            cells.push((family_name(f), Bytes::from(c.to_string()), value.clone()));
        }
    }
    cells
}

/// The cells a client writes in each row: a value of `--value-size` random letters.
fn client_cells(args: &Args, rng: &mut Rng) -> Vec<CellSpec> {
    let value: Bytes = (0..args.value_size)
        .map(|i| b'a' + ((i as u64 + rng.next()) % 26) as u8)
        .collect::<Vec<u8>>()
        .into();
    row_cells(args, &value)
}

/// HBase PE's family `info`, then `info1`, `info2`, ...
fn family_name(i: usize) -> Bytes {
    if i == 0 {
        Bytes::from_static(b"info")
    } else {
        Bytes::from(format!("info{i}"))
    }
}

/// Runs one command on `backend` from `args.threads` threads.
pub fn run_command(
    backend: &Arc<dyn Backend>,
    args: &Args,
    command: Command,
    progress: &indicatif::ProgressBar,
) -> Result<Report> {
    let total_rows = args.key_space.unwrap_or(args.rows * args.threads).max(1);
    let done = AtomicU64::new(0);
    let start = Instant::now();
    let results = run_clients(args.threads, |t| -> Result<(Histogram<u64>, u64)> {
        let mut hist = latency_histogram()?;
        let mut rng = Rng::new(args.seed ^ (t + 1));
        let cells = client_cells(args, &mut rng);
        let first = t * args.rows;
        let mut found = 0u64;
        let mut i = 0;
        let writes = matches!(command, Command::SequentialWrite | Command::RandomWrite);
        let mut buffered = match (writes, args.auto_flush) {
            (true, false) => Some(backend.buffered()?),
            _ => None,
        };
        while i < args.rows {
            let began = Instant::now();
            let n = match command {
                Command::SequentialWrite | Command::RandomWrite => {
                    let n = (args.batch.max(1) as u64).min(args.rows - i);
                    let batch: Vec<_> = (0..n)
                        .map(|k| {
                            let row = if command == Command::SequentialWrite && args.interleave {
                                // One increasing sequence shared by every thread.
                                (i + k) * args.threads + t
                            } else if command == Command::SequentialWrite {
                                first + i + k
                            } else {
                                rng.below(total_rows)
                            };
                            (row_key(row), cells.clone())
                        })
                        .collect();
                    match &mut buffered {
                        Some(b) => b.put(&batch)?,
                        None => backend.put(&batch)?,
                    }
                    n
                }
                Command::SequentialRead => {
                    found += backend.get(&row_key(first + i))? as u64;
                    1
                }
                Command::RandomRead => {
                    found += backend.get(&row_key(rng.below(total_rows)))? as u64;
                    1
                }
                Command::Increment => {
                    let row = row_key(rng.below(total_rows));
                    backend.increment(&row, b"info", b"counter")?;
                    found += 1;
                    1
                }
                Command::Ycsb => {
                    bail!("ycsb runs through its own driver")
                }
                Command::ScanRange10 | Command::ScanRange100 | Command::ScanRange1000 => {
                    let from = row_key(rng.below(total_rows));
                    found += backend.scan(&from, command.scan_length())? as u64;
                    1
                }
            };
            hist.saturating_record(micros_since(began));
            i += n;
            let all = done.fetch_add(n, Ordering::Relaxed) + n;
            if all % 1024 < n {
                progress.set_position(all);
            }
        }
        // What is still buffered is part of the run.
        if let Some(b) = buffered {
            b.close()?;
        }
        Ok((hist, found))
    })
    .with_context(|| command.name())?;
    let seconds = start.elapsed().as_secs_f64();
    progress.set_position(done.load(Ordering::Relaxed));
    let mut latency = latency_histogram()?;
    let mut found = 0;
    for (h, f) in results {
        latency.add(&h)?;
        found += f;
    }
    Ok(Report {
        backend: "basalt",
        command,
        ops: done.load(Ordering::Relaxed),
        seconds,
        latency,
        found,
    })
}

fn is_ycsb(args: &Args) -> bool {
    args.commands.contains(&Command::Ycsb)
}

/// The table: `--table`, except that YCSB's default is `usertable`.
fn table_name(args: &Args) -> String {
    if is_ycsb(args) && args.table == "TestTable" {
        "usertable".into()
    } else {
        args.table.clone()
    }
}

fn progress_bar(args: &Args, total: u64, message: String) -> indicatif::ProgressBar {
    if args.json {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// YCSB: the load phase (unless skipped), then the run phase.
fn run_ycsb(
    backend: &Arc<dyn Backend>,
    name: &'static str,
    args: &Args,
    out: &mut dyn std::io::Write,
) -> Result<Vec<ycsb::PhaseReport>> {
    let mut workload = ycsb::Workload::core(args.workload)?;
    if args.uniform {
        workload = workload.uniform();
    }
    let label = format!("workload{}", workload.name.to_ascii_lowercase());
    let prefix = if name == "basalt" { "" } else { "rocksdb " };
    let mut reports = Vec::new();
    if !args.skip_load {
        let bar = progress_bar(args, args.records, format!("{prefix}{label} load"));
        let phase = ycsb::Phase {
            ops: args.records,
            limit: None,
            threads: args.threads,
            seed: args.seed,
        };
        reports.push(ycsb::load(backend, phase, &bar)?);
        bar.finish_and_clear();
    }
    let limit = match args.seconds {
        Some(s) if s.is_finite() && s > 0.0 => Some(Duration::from_secs_f64(s)),
        Some(s) => bail!("--seconds must be positive, got {s}"),
        None => None,
    };
    let bar = progress_bar(args, args.operations, format!("{prefix}{label} run"));
    let phase = ycsb::Phase {
        ops: args.operations,
        limit,
        threads: args.threads,
        seed: args.seed.wrapping_add(1),
    };
    reports.push(ycsb::run(backend, &workload, args.records, phase, &bar)?);
    bar.finish_and_clear();
    for r in &reports {
        if args.json {
            writeln!(out, "{}", r.json(&label, name))?;
        } else {
            writeln!(out, "{}", r.text(&format!("{prefix}{label}")))?;
        }
    }
    Ok(reports)
}

/// Basalt / RocksDB throughput, as a text or JSON line.
fn ratio_line(what: &str, basalt: f64, rocks: f64, json: bool) -> String {
    let ratio = basalt / rocks.max(f64::MIN_POSITIVE);
    if json {
        format!(
            "{{\"compare\":\"{what}\",\"basalt_ops_per_second\":{basalt:.1},\"rocksdb_ops_per_second\":{rocks:.1},\"ratio\":{ratio:.3}}}"
        )
    } else {
        format!("{what}: basalt / rocksdb = {ratio:.2} ({basalt:.0} / {rocks:.0} ops/s)")
    }
}

/// The RocksDB comparator, if asked for.
#[cfg(feature = "rocksdb")]
fn comparator(args: &Args) -> Result<Option<Arc<dyn Backend>>> {
    if !args.compare_rocksdb && !args.rocksdb_only {
        return Ok(None);
    }
    let dir = if args.in_memory {
        std::env::temp_dir().join(format!("basalt-pe-rocksdb-{}", std::process::id()))
    } else {
        PathBuf::from(format!("{}-rocksdb", args.dir.display()))
    };
    let durability = args.durability()?;
    let compression = args.compression()?;
    let cache = args
        .block_cache
        .unwrap_or_else(basalt_storefile::BlockCache::default_capacity);
    Ok(Some(Arc::new(rocks::Rocks::open(
        &dir,
        durability,
        compression,
        cache,
        args.rocksdb_layout,
        args.block_size as usize,
        args.direct_reads,
    )?)))
}

#[cfg(not(feature = "rocksdb"))]
fn comparator(args: &Args) -> Result<Option<Arc<dyn Backend>>> {
    if args.compare_rocksdb || args.rocksdb_only {
        bail!(
            "--compare-rocksdb and --rocksdb-only: this basalt was built without RocksDB; build it with \
             `cargo run --release -p basalt-cli --features rocksdb -- pe ...` \
             (needs Debian's librocksdb-dev and libclang-dev, see DEPENDENCIES.md)"
        );
    }
    Ok(None)
}

/// The benchmark table's schema (YCSB's family or PE's `info`, `info1`, ...) and the split
/// keys `--presplit` asks for.
fn benchmark_table(
    args: &Args,
    name: TableName,
    compression: Compression,
) -> (TableDescriptor, Vec<Bytes>) {
    let mut desc = TableDescriptor::new(name);
    if is_ycsb(args) {
        desc.add_family(
            ColumnFamilyDescriptor::new(ycsb::FAMILY)
                .with_compression(compression)
                .with_block_size(args.block_size),
        );
    }
    for f in 0..args.families {
        desc.add_family(
            ColumnFamilyDescriptor::new(family_name(f))
                .with_compression(compression)
                .with_block_size(args.block_size),
        );
    }
    let total = args.key_space.unwrap_or(args.rows * args.threads);
    let splits: Vec<Bytes> = (1..args.presplit.max(1))
        .map(|i| row_key(total * i / args.presplit))
        .collect();
    (desc, splits)
}

/// The embedded engine: in memory, or on `--dir`.
fn embedded_connection(args: &Args) -> Result<Connection> {
    let mut builder = Connection::builder();
    if let Some(bytes) = args.block_cache {
        builder = builder.block_cache_size(bytes);
    }
    builder = builder.direct_reads(args.direct_reads);
    if let Some(bytes) = args.memstore_limit {
        builder = builder.global_memstore_size(bytes);
    }
    Ok(if args.in_memory {
        builder.build()
    } else {
        builder
            .file_system(args.storage.file_system()?)
            .root(&args.dir)
            .open()
            .with_context(|| format!("opening {}", args.dir.display()))?
    })
}

/// The benchmark table's schema and split keys, with `--compression` checked.
fn remote_benchmark_table(args: &Args) -> Result<(TableDescriptor, Vec<Bytes>)> {
    let compression = args.compression()?;
    let name = TableName::parse(&table_name(args))?;
    Ok(benchmark_table(args, name, compression))
}

/// A scan of up to `rows` rows from `start`, fetched in one call.
pub fn range_scan(start: &[u8], rows: usize) -> Scan {
    Scan::new()
        .with_start_row(Bytes::copy_from_slice(start))
        .with_limit(rows)
        .with_caching(rows)
}

/// Opens the engine and the table (created, pre-split, if missing).
fn open(args: &Args) -> Result<(Option<Connection>, Arc<dyn Backend>)> {
    if args.rows == 0 || args.threads == 0 {
        bail!("--rows and --threads must be at least 1");
    }
    if args.families == 0 || args.columns == 0 {
        bail!("--families and --columns must be at least 1");
    }
    let native_target = match (&args.rpc, &args.zookeeper) {
        (Some(addr), _) => Some(native::Target::Server(*addr)),
        (None, Some(quorum)) => Some(native::Target::Zookeeper(quorum.clone())),
        (None, None) => None,
    };
    if native_target.is_none() && (args.one_con || args.ipc_pool_size != 1) {
        bail!("--one-con and --ipc-pool-size are for the native RPC client: add --rpc HOST:PORT");
    }
    if let Some(addr) = args.thrift {
        if args.compare_rocksdb {
            bail!("--compare-rocksdb needs the embedded engine, not --thrift");
        }
        let backend = remote::Remote::open(args, addr, &remote::families(args))?;
        return Ok((None, Arc::new(backend)));
    }
    if let Some(layout) = &args.key_layout {
        if args.compare_rocksdb || args.thrift.is_some() {
            bail!("--key-layout runs embedded or with --rpc / --zookeeper");
        }
        let (desc, splits) = remote_benchmark_table(args)?;
        let (conn, inner): (Option<Connection>, Arc<dyn basalt_embedded::Client>) =
            match &native_target {
                Some(target) => {
                    let config = basalt_embedded::remote::RemoteConfig {
                        tls: args.tls.client()?,
                        kerberos: args.kerberos_principal.clone(),
                        ..basalt_embedded::remote::RemoteConfig::default()
                    };
                    let remote = target
                        .connect(config)
                        .with_context(|| format!("connecting to {target}"))?;
                    (None, Arc::new(remote))
                }
                None => {
                    let conn = embedded_connection(args)?;
                    (Some(conn.clone()), Arc::new(conn))
                }
            };
        let backend = laid::Laid::open(args, inner, layout, desc, &splits)?;
        return Ok((conn, Arc::new(backend)));
    }
    if let Some(target) = native_target {
        if args.compare_rocksdb {
            bail!("--compare-rocksdb needs the embedded engine, not --rpc");
        }
        let (desc, splits) = remote_benchmark_table(args)?;
        let backend = native::Native::open(args, target, desc, &splits)?;
        return Ok((None, Arc::new(backend)));
    }
    let durability = args.durability()?;
    let compression = args.compression()?;
    let conn = embedded_connection(args)?;
    let name = TableName::parse(&table_name(args))?;
    let admin = conn.admin();
    if !admin.table_exists(&name) {
        let (desc, splits) = benchmark_table(args, name, compression);
        admin.create_table_with_splits(desc, &splits)?;
    }
    let backend: Arc<dyn Backend> = Arc::new(Embedded {
        conn: conn.clone(),
        table: conn.table(&table_name(args))?,
        durability,
    });
    Ok((Some(conn), backend))
}

pub fn run(args: &Args, out: &mut dyn std::io::Write) -> Result<()> {
    let _idle = match args.rpc {
        Some(addr) if args.idle_connections > 0 => native::hold_idle(addr, args.idle_connections)?,
        _ => Vec::new(),
    };
    if args.async_client {
        if args.thrift.is_some() || args.compare_rocksdb || args.rocksdb_only {
            bail!("--async-client runs over the native RPC (--rpc or --zookeeper) alone");
        }
        return asynchronous::run(args, out);
    }
    if is_ycsb(args) && args.commands.len() > 1 {
        bail!("ycsb runs alone: give it as the only command");
    }
    let rocks = comparator(args)?;
    if args.rocksdb_only {
        let Some(rocks) = rocks else {
            bail!("--rocksdb-only: no RocksDB comparator was opened");
        };
        return run_alone(&rocks, "rocksdb", args, out);
    }
    let (conn, backend) = open(args)?;
    if is_ycsb(args) {
        let ours = run_ycsb(&backend, "basalt", args, out)?;
        if let Some(rocks) = &rocks {
            let theirs = run_ycsb(rocks, "rocksdb", args, out)?;
            for (a, b) in ours.iter().zip(&theirs) {
                let what = format!("workload{} {}", args.workload.to_ascii_lowercase(), a.phase);
                let line = ratio_line(&what, a.ops_per_second(), b.ops_per_second(), args.json);
                writeln!(out, "{line}")?;
            }
        }
        if let Some(conn) = &conn {
            conn.close()?;
        }
        return Ok(());
    }
    for &command in &args.commands {
        let total = args.rows * args.threads;
        let mut reports = Vec::new();
        for (name, b) in
            std::iter::once(("basalt", &backend)).chain(rocks.iter().map(|r| ("rocksdb", r)))
        {
            reports.push(run_reported(b, name, args, command, total, out)?);
        }
        if let [ours, theirs] = &reports[..] {
            let line = ratio_line(
                command.name(),
                ours.ops_per_second(),
                theirs.ops_per_second(),
                args.json,
            );
            writeln!(out, "{line}")?;
        }
    }
    if let Some(conn) = &conn {
        conn.close()?;
    }
    Ok(())
}

/// Runs the commands (or the YCSB workload) on `backend` alone.
fn run_alone(
    backend: &Arc<dyn Backend>,
    name: &'static str,
    args: &Args,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    if is_ycsb(args) {
        run_ycsb(backend, name, args, out)?;
        return Ok(());
    }
    for &command in &args.commands {
        run_reported(backend, name, args, command, args.rows * args.threads, out)?;
    }
    Ok(())
}

/// Runs one command on `backend` (called `name`) with a progress bar of `total` operations,
/// and prints its report.
fn run_reported(
    backend: &Arc<dyn Backend>,
    name: &'static str,
    args: &Args,
    command: Command,
    total: u64,
    out: &mut dyn std::io::Write,
) -> Result<Report> {
    let label = if name == "basalt" {
        command.name().to_owned()
    } else {
        format!("{name} {}", command.name())
    };
    let progress = progress_bar(args, total, label);
    let mut report = run_command(backend, args, command, &progress)?;
    report.backend = name;
    progress.finish_and_clear();
    if args.json {
        writeln!(out, "{}", report.json())?;
    } else {
        writeln!(out, "{}", report.text())?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    #[test]
    fn row_keys_are_hbase_pe_keys() {
        for n in [0, 1, 9, 10, 12_345, 99_999_999, u64::MAX] {
            assert_eq!(super::row_key(n), format!("{n:026}").as_bytes(), "{n}");
        }
    }

    /// Slow operations are reported as slow: latencies of milliseconds and seconds are kept,
    /// also after histograms are added together.
    #[test]
    fn long_latencies_are_recorded_as_they_were() {
        let mut h = super::latency_histogram().unwrap();
        for micros in [3, 2_500, 51_000, 4_000_000] {
            h.saturating_record(micros);
        }
        let mut total = super::latency_histogram().unwrap();
        total.add(&h).unwrap();
        let [p50, _, _, _, max] = super::Latency(&total).values();
        assert!((2_490..=2_510).contains(&p50), "p50 {p50}");
        assert!((3_990_000..=4_010_000).contains(&max), "max {max}");
    }
}
