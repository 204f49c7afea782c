//! The storage-level crash test: random workloads over the fault-injecting file system, with
//! flushes, compactions and injected write failures, ended by a killed process or a power loss
//! at a random point. After recovery every write acknowledged at FSYNC_WAL is present, and
//! every acknowledged SYNC_WAL write too when only the process died; nothing appears that was
//! never written; no row is torn.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Durability, Get, ManualClock, Put, TableDescriptor,
};
use basalt_fs::{Fault, FaultyFs};
use support::SeededRng as Rng;

/// Seeds run in CI; `BASALT_CRASH_SEEDS` asks for more.
const SEEDS: u64 = 1000;
const ROWS: u64 = 6;

fn open(fs: &FaultyFs, clock: &Arc<ManualClock>) -> basalt_embedded::Result<Connection> {
    support::open_after_crash(fs, |b| {
        b.clock(clock.clone())
            .major_compaction_interval(Duration::ZERO)
    })
}

/// One write: its row, its index (also its timestamp), its durability, whether it was acked.
struct Write {
    row: u64,
    index: u64,
    durability: Durability,
    acked: bool,
}

fn run(seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock).map_err(|e| e.to_string())?;
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.admin().create_table(desc).unwrap();
    let t = conn.table("t").unwrap();
    let mut writes = Vec::new();
    let mut trace = Vec::new();
    let ops = 5 + rng.below(60);
    let fault_at = rng.below(ops * 2);
    for op in 0..ops {
        if op == fault_at {
            let fault = Fault::random(rng.next(), 4);
            trace.push(format!("arm {fault:?}"));
            fs.arm(fault);
        }
        match rng.below(20) {
            0 => {
                let r = conn.admin().flush(t.name());
                trace.push(format!("flush {r:?}"));
            }
            1 => {
                let r = conn.admin().compact(t.name());
                trace.push(format!("compact {r:?}"));
            }
            2 => {
                let r = conn.admin().major_compact(t.name());
                trace.push(format!("major compact {r:?}"));
            }
            _ => {
                let index = writes.len() as u64 + 1;
                let row = rng.below(ROWS);
                let durability = if rng.below(2) == 0 {
                    Durability::SyncWal
                } else {
                    Durability::FsyncWal
                };
                let value = format!("w{index}");
                // Two columns, one mutation: both or neither must survive.
                let put = Put::new(format!("r{row}"))
                    .add_column_at("cf", "a", index as i64, value.clone())
                    .add_column_at("cf", "b", index as i64, value)
                    .with_durability(durability);
                let result = t.put(&put);
                trace.push(format!("w{index} r{row} {durability:?} {result:?}"));
                let acked = result.is_ok();
                writes.push(Write {
                    row,
                    index,
                    durability,
                    acked,
                });
            }
        }
    }
    let power_loss = rng.below(2) == 0;
    if power_loss {
        fs.crash();
    } else {
        fs.kill();
    }
    drop((t, conn));
    fs.disarm();

    trace.push(if power_loss { "power loss" } else { "kill" }.to_owned());
    let trace = trace.join("\n  ");
    let conn = open(&fs, &clock).map_err(|e| format!("recovery failed: {e}\n  {trace}"))?;
    let t = conn.table("t").unwrap();
    for row in 0..ROWS {
        let r = t
            .get(&Get::new(format!("r{row}")))
            .map_err(|e| e.to_string())?;
        let a = r.latest_cell(b"cf", b"a");
        let b = r.latest_cell(b"cf", b"b");
        let seen = match (a, b) {
            (None, None) => 0,
            (Some(a), Some(b)) if a.timestamp == b.timestamp && a.value() == b.value() => {
                let index = a.timestamp as u64;
                let issued = writes.iter().any(|w| w.row == row && w.index == index);
                if !issued || a.value() != format!("w{index}").as_bytes() {
                    return Err(format!("r{row}: a write never issued appeared: {a}"));
                }
                index
            }
            (a, b) => return Err(format!("r{row} is torn: a = {a:?}, b = {b:?}")),
        };
        let must_survive = writes
            .iter()
            .filter(|w| w.row == row && w.acked)
            .filter(|w| !power_loss || w.durability == Durability::FsyncWal)
            .map(|w| w.index)
            .max()
            .unwrap_or(0);
        if seen < must_survive {
            return Err(format!(
                "r{row}: acknowledged write w{must_survive} lost (newest seen: w{seen}), \
                 after a {}",
                if power_loss {
                    "power loss"
                } else {
                    "killed process"
                }
            ) + "\n  "
                + &trace);
        }
    }
    conn.close().map_err(|e| e.to_string())
}

#[test]
fn acknowledged_writes_survive_random_crashes() {
    let seeds = std::env::var("BASALT_CRASH_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SEEDS);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut ran = 0;
    for seed in 0..seeds {
        if let Err(e) = run(seed) {
            panic!("seed {seed}: {e}");
        }
        ran += 1;
        if Instant::now() > deadline {
            break;
        }
    }
    assert!(
        ran >= seeds.min(100),
        "only {ran} seeds ran in the time bound"
    );
}
