//! `basalt-chaos`: runs a campaign (see `basalt_chaos::campaign`) and prints its verdict.
//!
//! ```text
//! basalt-chaos --basalt target/release/basalt [--seconds N] [--nemesis a,b,...] [--seed S]
//!              [--servers N] [--session-timeout-ms MS] [--dir DIR] [--python PATH]
//! basalt-chaos --check DIR      # checks a run's history.txt again
//! basalt-chaos --scale-out --basalt PATH [--cpus F] [--rows N] [--threads N] [--dir DIR]
//! ```
//! Needs root (network namespaces). `scripts/chaos.sh` builds both binaries and runs it.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use basalt_chaos::campaign::{self, Nemesis, Plan};
use basalt_chaos::cluster::Settings;
use basalt_chaos::driver::DriverSettings;

fn usage() -> String {
    let names: Vec<&str> = Nemesis::ALL.iter().map(|n| n.name()).collect();
    format!(
        "usage: basalt-chaos --basalt PATH [--seconds N] [--nemesis {}] [--seed S] [--servers N] [--session-timeout-ms MS] [--dir DIR] [--python VENV/bin/python]\n       basalt-chaos --check DIR\n       basalt-chaos --scale-out --basalt PATH [--cpus F] [--rows N] [--threads N] [--dir DIR]",
        names.join(",")
    )
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(2),
        Err(e) => {
            eprintln!("ERROR: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Checks `dir/history.txt` again and prints the verdict.
fn check_again(dir: &std::path::Path) -> Result<bool, String> {
    let path = dir.join("history.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut history = basalt_chaos::report::parse_history(&text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let dropped = basalt_chaos::models::drop_unseen_appends(&mut history);
    let started = std::time::Instant::now();
    let verdict = basalt_chaos::linearizability::check(
        &basalt_chaos::models::Cells,
        &history,
        Duration::from_secs(600),
    );
    println!(
        "{} operations ({dropped} unknown appends never seen left out), checked in {:.1} s: {}",
        history.len(),
        started.elapsed().as_secs_f64(),
        basalt_chaos::report::verdict_text(&verdict, &history)
    );
    Ok(verdict.is_linearizable())
}

/// `--scale-out`: throughput per server CPU-second, standalone and 1 and 3 region servers.
fn scale_out(mut args: impl Iterator<Item = String>) -> Result<bool, String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut plan = basalt_chaos::scale::ScalePlan {
        basalt: PathBuf::new(),
        zookeeper_script: root.join("tests/zookeeper/start.sh"),
        dir: std::env::temp_dir().join(format!("basalt-scale-{}", std::process::id())),
        cpus: 0.5,
        rows: 20_000,
        threads: 16,
        subnet: u8::try_from(20 + std::process::id() % 200).unwrap_or(20),
        tag: format!("s{}", std::process::id() % 10_000),
    };
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))?;
        let bad = format!("{flag}: not a number: {value}");
        match flag.as_str() {
            "--basalt" => plan.basalt = PathBuf::from(&value),
            "--dir" => plan.dir = PathBuf::from(&value),
            "--cpus" => plan.cpus = value.parse().map_err(|_| bad.clone())?,
            "--rows" => plan.rows = value.parse().map_err(|_| bad.clone())?,
            "--threads" => plan.threads = value.parse().map_err(|_| bad.clone())?,
            other => return Err(format!("unknown flag {other}\n{}", usage())),
        }
    }
    if plan.basalt.as_os_str().is_empty() {
        return Err(usage());
    }
    if !(0.05..=64.0).contains(&plan.cpus) {
        return Err("--cpus must be 0.05 to 64".into());
    }
    let figures = basalt_chaos::scale::run(&plan).map_err(|e| e.to_string())?;
    let table = basalt_chaos::scale::table(&figures, plan.cpus);
    std::fs::create_dir_all(&plan.dir).map_err(|e| e.to_string())?;
    std::fs::write(plan.dir.join("scale.md"), &table).map_err(|e| e.to_string())?;
    print!("{table}");
    Ok(true)
}

fn run() -> Result<bool, String> {
    let mut args = std::env::args().skip(1);
    match std::env::args().nth(1).as_deref() {
        Some("--check") => {
            let dir = std::env::args().nth(2).ok_or_else(usage)?;
            return check_again(std::path::Path::new(&dir));
        }
        Some("--scale-out") => return scale_out(std::env::args().skip(2)),
        _ => {}
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut basalt = None;
    let mut seconds = 0;
    let mut nemeses: Vec<Nemesis> = Nemesis::ALL.to_vec();
    let mut seed = 1;
    let mut servers = 3;
    let mut session = 4000;
    let mut dir = None;
    let mut python = None;
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{flag} needs a value\n{}", usage()))
        };
        let number = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: not a number: {v}"))
        };
        match flag.as_str() {
            "--basalt" => basalt = Some(PathBuf::from(value()?)),
            "--seconds" => seconds = number(value()?)?,
            "--seed" => seed = number(value()?)?,
            "--servers" => servers = number(value()?)?,
            "--session-timeout-ms" => session = number(value()?)?,
            "--dir" => dir = Some(PathBuf::from(value()?)),
            "--python" => python = Some(PathBuf::from(value()?)),
            "--nemesis" => {
                nemeses = value()?
                    .split(',')
                    .map(|n| {
                        Nemesis::parse(n.trim())
                            .ok_or_else(|| format!("unknown nemesis {n:?}\n{}", usage()))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "-h" | "--help" => return Err(usage()),
            other => return Err(format!("unknown flag {other}\n{}", usage())),
        }
    }
    let basalt = basalt.ok_or_else(usage)?;
    if !(1..=8).contains(&servers) {
        return Err("--servers must be 1 to 8".into());
    }
    let dir = dir.unwrap_or_else(|| {
        std::env::temp_dir().join(format!("basalt-chaos-{}", std::process::id()))
    });
    let driver = match python {
        Some(python) => {
            if !basalt_chaos::driver::available(&python).map_err(|e| e.to_string())? {
                return Err(format!(
                    "{}: hbase-driver is not installed there",
                    python.display()
                ));
            }
            Some(DriverSettings {
                python,
                script: root.join("tests/chaos/driver_client.py"),
                log: dir.join("logs").join("driver.log"),
            })
        }
        None => None,
    };
    let plan = Plan {
        settings: Settings {
            basalt,
            zookeeper_script: root.join("tests/zookeeper/start.sh"),
            dir: dir.clone(),
            session_timeout: Duration::from_millis(session),
            driver,
        },
        nemeses,
        seconds,
        seed,
        servers: usize::try_from(servers).unwrap_or(3),
        subnet: u8::try_from(20 + std::process::id() % 200).unwrap_or(20),
        tag: format!("{}", std::process::id() % 100_000),
    };
    let outcome =
        campaign::run(&plan).map_err(|e| format!("{e} (run directory {})", dir.display()))?;
    println!(
        "{} operations ({} unknown), {} faults; {}",
        outcome.operations,
        outcome.unknown,
        outcome.windows.len(),
        std::fs::read_to_string(dir.join("verdict.txt")).unwrap_or_default()
    );
    println!("report: {}", dir.display());
    Ok(outcome.verdict.is_linearizable())
}
