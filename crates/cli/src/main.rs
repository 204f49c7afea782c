//! `basalt`: the one Basalt binary. Today it inspects store files (`basalt hfile`) and WAL
//! segments (`basalt wal`) and measures performance (`basalt pe`); the server
//! (`standalone`) and the shell join it as they are built.

mod hfile;
mod pe;
mod wal;

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
    /// Print a store file's trailer, file info, index, bloom filter and cells (like `hbase hfile`).
    Hfile(hfile::Args),
    /// Print a WAL segment's edits and how it ends (like `hbase wal`).
    Wal(wal::Args),
    /// Measure throughput and latency (like `hbase pe`, PerformanceEvaluation).
    Pe(pe::Args),
    /// Draw `basalt pe --json` results as an SVG bar chart (throughput and p99 latency).
    PePlot(pe::plot::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Hfile(args) => hfile::run(&args, &mut std::io::stdout().lock()),
        Command::Wal(args) => wal::run(&args, &mut std::io::stdout().lock()),
        Command::Pe(args) => pe::run(&args, &mut std::io::stdout().lock()),
        Command::PePlot(args) => pe::plot::run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ERROR: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
