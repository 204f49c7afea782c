//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod model;

use std::sync::Arc;

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, ManualClock, RowResult, Table, TableDescriptor,
};

/// A test's random choices, reproducible from a seed (ChaCha, through proptest's `TestRng`).
pub struct SeededRng(proptest::test_runner::TestRng);

impl SeededRng {
    pub fn new(seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        SeededRng(proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &bytes,
        ))
    }

    pub fn next(&mut self) -> u64 {
        use proptest::prelude::Rng as _;
        self.0.next_u64()
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Arms `fault` on `fs`, runs `change` on `conn` (it says what it did), then the process
/// dies: killed, or (by `rng`) the power lost. Returns whether the fault fired during the
/// change, and the case's trace for messages.
pub fn crash_during(
    fs: &basalt_fs::FaultyFs,
    rng: &mut SeededRng,
    fault: basalt_fs::Fault,
    conn: Connection,
    change: impl FnOnce(&Connection, &mut SeededRng) -> String,
) -> (bool, String) {
    fs.arm(fault);
    let did = change(&conn, rng);
    let fired = fs.fired() > 0;
    fs.disarm();
    let power_loss = rng.below(2) == 0;
    if power_loss {
        fs.crash();
    } else {
        fs.kill();
    }
    drop(conn);
    let how = if power_loss { "power loss" } else { "kill" };
    (fired, format!("{fault:?}, {did}, then {how}"))
}

/// Runs `run` for seeds `0..` (as many as the environment variable `var` says, else
/// `default`, stopping after `budget`), panicking on the first failure; checks that at least
/// 20 ran and that the fault fired (`run` returns whether it did) in at least one in
/// `fired_one_in`. Returns how many ran and how many were interrupted.
pub fn crash_seeds(
    var: &str,
    default: u64,
    budget: std::time::Duration,
    fired_one_in: u32,
    mut run: impl FnMut(u64) -> Result<bool, String>,
) -> (u32, u32) {
    let seeds = std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    let deadline = std::time::Instant::now() + budget;
    let (mut ran, mut interrupted) = (0, 0);
    for seed in 0..seeds {
        match run(seed) {
            Ok(fired) => interrupted += u32::from(fired),
            Err(e) => panic!("seed {seed}: {e}"),
        }
        ran += 1;
        if std::time::Instant::now() > deadline {
            break;
        }
    }
    eprintln!("{ran} seeds ran, {interrupted} changes interrupted by their fault");
    assert!(ran >= 20, "only {ran} seeds ran");
    assert!(
        interrupted * fired_one_in >= ran,
        "too few faults fired: {interrupted} of {ran}"
    );
    (ran, interrupted)
}

/// Opens the data directory `/data` on `fs`, configured by `configure`, after a simulated
/// kill or power loss. A thread of the dead "process" (a background compaction or flush) may
/// still hold the directory's lock for a moment (its file system handle is dead, so it
/// changes nothing): the open is retried for up to 10 s while the lock is held.
pub fn open_after_crash(
    fs: &basalt_fs::FaultyFs,
    configure: impl Fn(basalt_embedded::ConnectionBuilder) -> basalt_embedded::ConnectionBuilder,
) -> basalt_embedded::Result<Connection> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let builder = Connection::builder()
            .file_system(Arc::new(fs.clone()))
            .root("/data");
        match configure(builder).open() {
            Err(e) if e.to_string().contains("in use") && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            other => return other,
        }
    }
}

/// An in-memory connection whose clock starts at `start` ms and moves only when told.
pub fn connection_at(start: i64) -> (Connection, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start));
    (Connection::builder().clock(clock.clone()).build(), clock)
}

/// Creates table `name` with the given families (default attributes) and returns it.
pub fn create_table(conn: &Connection, name: &str, families: &[&str]) -> Table {
    let mut desc = TableDescriptor::named(name).expect("valid name");
    for f in families {
        desc.add_family(ColumnFamilyDescriptor::new(f.as_bytes().to_vec()));
    }
    create_with(conn, desc)
}

/// Creates the table `desc` describes and returns it.
pub fn create_with(conn: &Connection, desc: TableDescriptor) -> Table {
    let name = desc.name.to_string();
    conn.admin().create_table(desc).expect("create table");
    conn.table(&name).expect("table handle")
}

/// `family:qualifier@ts=value` for each cell, for compact assertions.
pub fn cells(r: &RowResult) -> Vec<String> {
    r.cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

/// The row keys of a whole scan, as strings.
pub fn scan_rows(table: &Table, scan: &basalt_embedded::Scan) -> Vec<String> {
    table
        .scan(scan)
        .expect("scan")
        .map(|r| String::from_utf8_lossy(&r.expect("row").row).into_owned())
        .collect()
}
