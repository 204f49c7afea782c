//! `basalt pe --rpc HOST:PORT --async-client` (or `--zookeeper`): the benchmarks through the
//! async client, `--threads` requests in flight at once (tasks on a tokio runtime of
//! `--async-workers` threads) on one shared `AsyncConnection`, where the blocking client
//! needs a thread per request in flight.

use basalt_embedded::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use basalt_embedded::remote::{AsyncConnection, AsyncTable, RemoteConfig};
use basalt_embedded::{Bytes, Get, Increment};

use super::{
    Args, Command, Report, Rng, client_cells, latency_histogram, micros_since, progress_bar,
    put_of, range_scan, remote_benchmark_table, row_key, table_name,
};

/// Connects, creates the table if missing, and runs every command; reports as `pe` does.
pub fn run(args: &Args, out: &mut dyn std::io::Write) -> Result<()> {
    if args.rows == 0 || args.threads == 0 {
        bail!("--rows and --threads must be at least 1");
    }
    if args.batch > 1 || !args.auto_flush || args.key_layout.is_some() || args.one_con {
        bail!(
            "--async-client sends one request per operation: drop --batch, --auto-flush false, --key-layout and --one-con"
        );
    }
    if args.commands.contains(&Command::Ycsb) {
        bail!("--async-client runs PE's commands, not ycsb");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(usize::from(args.async_workers))
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let config = RemoteConfig {
        pool_size: usize::from(args.ipc_pool_size),
        tls: args.tls.client()?,
        kerberos: args.kerberos_principal.clone(),
        ..RemoteConfig::default()
    };
    let conn = runtime.block_on(async {
        match (&args.rpc, &args.zookeeper) {
            (Some(addr), _) => Ok(AsyncConnection::connect(*addr, config).await?),
            (None, Some(quorum)) => Ok(AsyncConnection::through_zookeeper(quorum, config).await?),
            (None, None) => bail!("--async-client needs --rpc HOST:PORT or --zookeeper HOST:PORT"),
        }
    })?;
    let (descriptor, splits) = remote_benchmark_table(args)?;
    runtime.block_on(async {
        let admin = conn.admin();
        if !admin.table_exists(&descriptor.name).await? {
            admin
                .create_table(descriptor, &splits)
                .await
                .context("creating the benchmark table over RPC")?;
        }
        anyhow::Ok(())
    })?;
    let table = conn.table(&table_name(args))?;
    for &command in &args.commands {
        let total = args.rows * args.threads;
        let bar = progress_bar(args, total, format!("{} (async)", command.name()));
        let report = runtime.block_on(run_command(&table, args, command, &bar))?;
        bar.finish_and_clear();
        if args.json {
            writeln!(out, "{}", report.json())?;
        } else {
            writeln!(out, "{} ({} in flight, async)", report.text(), args.threads)?;
        }
    }
    Ok(())
}

/// One command: `--threads` tasks, each doing `--rows` operations one after another.
async fn run_command(
    table: &AsyncTable,
    args: &Args,
    command: Command,
    progress: &indicatif::ProgressBar,
) -> Result<Report> {
    let total_rows = args.key_space.unwrap_or(args.rows * args.threads).max(1);
    let durability = args.durability()?;
    let done = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in 0..args.threads {
        let table = table.clone();
        let done = Arc::clone(&done);
        let mut rng = Rng::new(args.seed ^ (t + 1));
        let cells = client_cells(args, &mut rng);
        let rows = args.rows;
        let first = t * rows;
        tasks.spawn(async move {
            let mut hist = latency_histogram()?;
            let mut found = 0u64;
            for i in 0..rows {
                let began = Instant::now();
                match command {
                    Command::SequentialWrite | Command::RandomWrite => {
                        let row = if command == Command::SequentialWrite {
                            first + i
                        } else {
                            rng.below(total_rows)
                        };
                        table
                            .put(&put_of(&(row_key(row), cells.clone()), durability))
                            .await?;
                    }
                    Command::SequentialRead | Command::RandomRead => {
                        let row = if command == Command::SequentialRead {
                            first + i
                        } else {
                            rng.below(total_rows)
                        };
                        found += table.get(&Get::new(row_key(row))).await?.cells.len() as u64;
                    }
                    Command::Increment => {
                        let row = row_key(rng.below(total_rows));
                        table
                            .increment(&Increment::new(row).add_column(
                                Bytes::from_static(b"info"),
                                Bytes::from_static(b"counter"),
                                1,
                            ))
                            .await?;
                        found += 1;
                    }
                    Command::ScanRange10 | Command::ScanRange100 | Command::ScanRange1000 => {
                        let from = row_key(rng.below(total_rows));
                        let scan = range_scan(&from, command.scan_length());
                        found += table.scan(&scan).await?.len() as u64;
                    }
                    Command::Ycsb => bail!("ycsb runs through its own driver"),
                }
                hist.saturating_record(micros_since(began));
                done.fetch_add(1, Ordering::Relaxed);
            }
            anyhow::Ok((hist, found))
        });
    }
    let mut latency = latency_histogram()?;
    let mut found = 0;
    loop {
        let tick = std::time::Duration::from_millis(200);
        let Ok(joined) = tokio::time::timeout(tick, tasks.join_next()).await else {
            progress.set_position(done.load(Ordering::Relaxed));
            continue;
        };
        let Some(joined) = joined else { break };
        let (h, f) = joined.context("a benchmark task panicked")??;
        latency.add(&h)?;
        found += f;
    }
    let seconds = start.elapsed().as_secs_f64();
    progress.set_position(done.load(Ordering::Relaxed));
    Ok(Report {
        backend: "basalt",
        command,
        ops: done.load(Ordering::Relaxed),
        seconds,
        latency,
        found,
    })
}
