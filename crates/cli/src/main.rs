//! `basalt`: the one Basalt binary. It runs the server (`basalt standalone`), inspects store
//! files (`basalt hfile`) and WAL segments (`basalt wal`), and measures performance
//! (`basalt pe`), and runs HBase's shell (`basalt shell`) and the Thrift gateway on its own
//! (`basalt thrift`, `basalt thrift2`).

/// mimalloc rather than glibc's malloc: with a thread arena per core and more, glibc kept
/// about twice the memory a load really holds (610 MB resident for a 128 MiB memstore budget;
/// BENCHMARKS.md, issue 43), too much for a server inside a small container.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod cluster;
mod connect;
mod hfile;
mod info;
mod pe;
mod rest;
mod shell;
mod standalone;
mod storage;
mod thrift;
mod tls;
mod tools;
mod wal;

/// Prints a line for the operator; a closed or broken stdout (a server's output piped to a
/// reader that went away) must not stop the server, so write errors are ignored.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "basalt",
    version,
    about = "Basalt: HBase's wide-column store, rebuilt in Rust"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run Basalt: the engine on a data directory and its Thrift1 gateway.
    Standalone(standalone::Args),
    /// A cluster's master: active, or a backup until the active one goes.
    Master(cluster::master::Args),
    /// One region server of a cluster, on the shared data directory (`basalt regionserver stop
    /// [--graceful] HOST:PORT` stops a running one: `basalt regionserver stop --help`).
    Regionserver(cluster::regionserver::Args),
    /// Stop a running region server, moving its regions to the others first with --graceful
    /// (HBase's graceful_stop)
    #[command(
        name = "regionserver-stop",
        hide = true,
        override_usage = "basalt regionserver stop [OPTIONS] <SERVER>"
    )]
    RegionserverStop(tools::regionmover::StopArgs),
    /// A cluster on this machine (`basalt cluster start --servers N`).
    Cluster {
        #[command(subcommand)]
        action: cluster::Action,
    },
    /// HBase's shell, on a running server or a data directory.
    Shell(shell::Args),
    /// The Thrift1 gateway on its own, a client of a running server (`--connect HOST:PORT`).
    Thrift(thrift::Args),
    /// The Thrift2 gateway (HBase's `hbase thrift2`, THBaseService) on its own, a client of a
    /// running server or cluster.
    Thrift2(thrift::Args),
    /// HBase's REST gateway on its own, a client of a running server or cluster.
    Rest(rest::Args),
    /// Snapshots' tools: `basalt snapshot export NAME --to DIR`
    Snapshot {
        #[command(subcommand)]
        action: tools::snapshot::Action,
    },
    /// Export a table to SequenceFiles of HBase's Results (HBase's Export)
    Export(tools::export::ExportArgs),
    /// Write an export's rows into a table (HBase's Import)
    Import(tools::export::ImportArgs),
    /// Copy a table's rows to another table, here or on another server (HBase's CopyTable)
    Copytable(tools::copy::CopyTableArgs),
    /// Count a table's rows (HBase's RowCounter)
    Rowcounter(tools::copy::RowCounterArgs),
    /// Move every region off a region server, or back onto it (HBase's RegionMover):
    /// `regionmover unload|load HOST:PORT`
    Regionmover(tools::regionmover::Args),
    /// Check hbase:meta, the region directories, the servers and the WAL directories for
    /// inconsistencies, and repair them (HBase's HBCK2): `hbck` reports, `hbck fixMeta`,
    /// `hbck assigns ...` and the others repair
    Hbck(tools::hbck::Args),
    /// Check that every region (or region server) answers a read, or a write with
    /// --write-sniffing, reporting each one's latency; exits 4 if any failed (HBase's Canary).
    /// --daemon repeats it and serves /metrics
    Canary(tools::canary::Args),
    /// Compare a table with its copy at a replication peer, row by row (HBase's
    /// VerifyReplication): GOODROWS and BADROWS
    Verifyrep(tools::verifyrep::Args),
    /// Read delimited text into a table, or into store files to bulk load (HBase's ImportTsv)
    Importtsv(tools::bulk::ImportTsvArgs),
    /// Hand prepared store files to a table's regions (HBase's completebulkload)
    Bulkload(tools::bulk::BulkLoadArgs),
    /// Each region's share of a table's recent reads and writes, and what a hot spot says
    /// about its row keys
    Hotspots(tools::hotspots::Args),
    /// Print a store file's trailer, file info, index, bloom filter and cells (like `hbase hfile`).
    Hfile(hfile::Args),
    /// Print a WAL segment's edits and how it ends (like `hbase wal`).
    Wal(wal::Args),
    /// Measure throughput and latency (like `hbase pe`, PerformanceEvaluation).
    Pe(pe::Args),
    /// Draw `basalt pe --json` results as an SVG bar chart (throughput and p99 latency).
    PePlot(pe::plot::Args),
}

/// Raises the soft limit on open files to the hard one, as the JVM does for HBase (and Go's
/// runtime for its servers): a region server holds a descriptor per client connection, and
/// distributions often start processes at 1024.
fn raise_open_files_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
        && let Err(e) = setrlimit(Resource::RLIMIT_NOFILE, hard, hard)
    {
        basalt_common::log::log("basalt", basalt_common::log::Level::Warn, || {
            format!("cannot raise the open files limit from {soft} to {hard}: {e}")
        });
    }
}

fn main() -> std::process::ExitCode {
    basalt_common::log::install();
    raise_open_files_limit();
    // `regionserver stop` is a command of its own: the server's flags (a required ZooKeeper)
    // do not apply to it.
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv.get(1).is_some_and(|a| a == "regionserver") && argv.get(2).is_some_and(|a| a == "stop")
    {
        argv.splice(1..3, [std::ffi::OsString::from("regionserver-stop")]);
    }
    // HBase's Canary takes single-dash options (-writeSniffing, -regionserver, -t 5000).
    if argv.get(1).is_some_and(|a| a == "canary") {
        for arg in argv.iter_mut().skip(2) {
            let hbase = match arg.to_str() {
                Some("-writeSniffing") => "--write-sniffing",
                Some("-regionserver") => "--regionserver",
                Some("-daemon") => "--daemon",
                Some("-interval") => "--interval",
                Some("-t") => "--timeout",
                Some("-writeTable") => "--write-table",
                _ => continue,
            };
            *arg = std::ffi::OsString::from(hbase);
        }
    }
    let cli = Cli::parse_from(argv);
    let result = match cli.command {
        Command::Standalone(args) => standalone::run(&args),
        Command::Master(args) => cluster::master::run(&args),
        Command::Regionserver(args) => cluster::regionserver::run(&args),
        Command::RegionserverStop(args) => tools::regionmover::stop(&args),
        Command::Cluster {
            action: cluster::Action::Start(args),
        } => cluster::local::run(&args),
        Command::Shell(args) => shell::run(&args),
        Command::Thrift(args) => thrift::run(&args, thrift::Service::Thrift1),
        Command::Thrift2(args) => thrift::run(&args, thrift::Service::Thrift2),
        Command::Rest(args) => rest::run(&args),
        Command::Snapshot { action } => tools::snapshot::run(&action),
        Command::Export(args) => tools::export::export(&args),
        Command::Import(args) => tools::export::import(&args),
        Command::Copytable(args) => tools::copy::copy_table(&args),
        Command::Rowcounter(args) => tools::copy::row_counter(&args),
        Command::Verifyrep(args) => tools::verifyrep::run(&args),
        Command::Regionmover(args) => tools::regionmover::run(&args),
        Command::Canary(args) => match tools::canary::run(&args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Hbck(args) => match tools::hbck::run(&args) {
            Ok(code) => return code,
            Err(e) => Err(e),
        },
        Command::Importtsv(args) => tools::bulk::import_tsv(&args),
        Command::Bulkload(args) => tools::bulk::bulk_load(&args),
        Command::Hotspots(args) => tools::hotspots::run(&args),
        Command::Hfile(args) => hfile::run(&args, &mut std::io::stdout().lock()),
        Command::Wal(args) => wal::run(&args, &mut std::io::stdout().lock()),
        Command::Pe(args) => pe::run(&args, &mut std::io::stdout().lock()),
        Command::PePlot(args) => pe::plot::run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {}", error_chain(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// An error and its causes, `: `-separated as anyhow's `{:#}` shows them, without a cause
/// whose text its error already ends with (a storage error's message is its cause's text).
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cause_already_told_is_not_told_again() {
        let io = std::io::Error::other("DIR/basalt.version.tmp: already exists");
        let e = anyhow::Error::new(basalt_embedded::Error::storage_from(io))
            .context("cannot start on DIR");
        assert_eq!(
            super::error_chain(&e),
            "cannot start on DIR: Storage error: DIR/basalt.version.tmp: already exists"
        );
        let plain = anyhow::anyhow!("inner").context("outer");
        assert_eq!(super::error_chain(&plain), "outer: inner");
    }
}
