//! Crashes in the middle of catalog changes: a table that has split several times is split,
//! merged, compacted (its parents cleaned up), altered, or has a table created or deleted
//! beside it, while the fault-injecting file system kills the process at a random step (or
//! fails one write and then the process dies or the power goes). After reopening, the catalog
//! must be consistent: the serving regions tile the key space with no gap and no overlap,
//! every acknowledged row reads back exactly once, and nothing on disk is left that no
//! catalog entry owns once the cleanup has run.
//!
//! `BASALT_CATALOG_CRASH_SEEDS` sets how many seeds run (default 300; the test also stops
//! after 90 s). A second test writes until a table has split by itself several times, then
//! dies at a random step of the writes, flushes, splits and compactions that follow
//! (`BASALT_AUTO_SPLIT_CRASH_SEEDS`, default 3).
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, Durability, Put, Scan, TableDescriptor, TableName,
};
use basalt_fs::{Fault, FaultyFs, FileSystem};
use support::SeededRng as Rng;

const SEEDS: u64 = 300;
const ROWS: u64 = 400;

fn open(fs: &FaultyFs) -> basalt_embedded::Result<Connection> {
    support::open_after_crash(fs, |b| {
        b.auto_split(false)
            .major_compaction_interval(Duration::ZERO)
    })
}

fn row(i: u64) -> String {
    format!("row{i:04}")
}

fn name(s: &str) -> TableName {
    TableName::parse(s).unwrap()
}

/// The table under test: FSYNC_WAL, so acknowledged writes survive power loss too, and no
/// background compactions, so references stay until the test compacts.
fn descriptor(table: &str) -> TableDescriptor {
    let mut d = TableDescriptor::named(table)
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_durability(Durability::FsyncWal);
    d.compaction_enabled = false;
    d
}

/// Builds the starting point: a table split three times (one daughter compacted, so one
/// parent is cleaned and another still referenced), all rows written.
fn setup(conn: &Connection, rng: &mut Rng) {
    let admin = conn.admin();
    admin
        .create_table_with_splits(descriptor("t"), &[Bytes::from(row(ROWS / 2))])
        .unwrap();
    let t = conn.table("t").unwrap();
    for i in 0..ROWS {
        t.put(&Put::new(row(i)).add_column("cf", "q", format!("v{i}")))
            .unwrap();
    }
    let first = 1 + rng.below(ROWS / 2 - 2);
    admin
        .split(&name("t"), Some(row(first).as_bytes()))
        .unwrap();
    let regions = admin.regions(&name("t")).unwrap();
    admin.compact_region(&regions[0].name, true).unwrap();
    let second = ROWS / 2 + 1 + rng.below(ROWS / 2 - 2);
    admin
        .split(&name("t"), Some(row(second).as_bytes()))
        .unwrap();
}

/// The change a crash interrupts.
fn change(conn: &Connection, rng: &mut Rng) -> String {
    let admin = conn.admin();
    let regions = admin.regions(&name("t")).unwrap_or_default();
    match rng.below(7) {
        0 | 1 => {
            let at = row(rng.below(ROWS));
            let r = admin.split(&name("t"), Some(at.as_bytes()));
            format!("split at {at}: {r:?}")
        }
        2 if regions.len() >= 2 => {
            let i = rng.below(regions.len() as u64 - 1) as usize;
            let r = admin.merge_regions(&regions[i].name, &regions[i + 1].name);
            format!("merge {i} and {}: {r:?}", i + 1)
        }
        3 => format!("major compact: {:?}", admin.major_compact(&name("t"))),
        4 => format!(
            "alter: {:?}",
            admin.add_column_family(&name("t"), ColumnFamilyDescriptor::new("cf2"))
        ),
        5 => format!(
            "create: {:?}",
            admin.create_table_with_splits(
                descriptor("other"),
                &[Bytes::from_static(b"m"), Bytes::from_static(b"t")]
            )
        ),
        _ => {
            let _ = admin.create_table(descriptor("gone"));
            let _ = admin.disable_table(&name("gone"));
            format!("delete: {:?}", admin.delete_table(&name("gone")))
        }
    }
}

/// Checks the reopened engine.
fn verify(conn: &Connection) -> Result<(), String> {
    let admin = conn.admin();
    let regions = admin.regions(&name("t")).map_err(|e| e.to_string())?;
    let first = regions.first().ok_or("no regions")?;
    if !first.start_key.is_empty() || !regions.last().ok_or("no regions")?.end_key.is_empty() {
        return Err(format!("regions do not cover the key space: {regions:?}"));
    }
    for w in regions.windows(2) {
        if w[0].end_key != w[1].start_key {
            return Err(format!("gap or overlap between {:?} and {:?}", w[0], w[1]));
        }
    }
    let t = conn.table("t").map_err(|e| e.to_string())?;
    let got: Vec<(String, String)> = t
        .scan(&Scan::new())
        .map_err(|e| e.to_string())?
        .map(|r| {
            let r = r.map_err(|e| e.to_string())?;
            Ok((
                String::from_utf8_lossy(&r.row).into_owned(),
                String::from_utf8_lossy(r.value(b"cf", b"q").unwrap_or_default()).into_owned(),
            ))
        })
        .collect::<Result<_, String>>()?;
    let want: Vec<(String, String)> = (0..ROWS).map(|i| (row(i), format!("v{i}"))).collect();
    if got != want {
        let missing: Vec<_> = want.iter().filter(|w| !got.contains(w)).take(5).collect();
        return Err(format!(
            "{} rows read back for {} written; first missing {missing:?}",
            got.len(),
            want.len()
        ));
    }
    Ok(())
}

/// After the cleanup, every region directory belongs to a serving region.
fn no_leftovers(conn: &Connection, fs: &FaultyFs) -> Result<(), String> {
    let admin = conn.admin();
    admin.major_compact(&name("t")).map_err(|e| e.to_string())?;
    admin.run_catalog_janitor().map_err(|e| e.to_string())?;
    let serving: Vec<String> = admin
        .regions(&name("t"))
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| r.encoded_name)
        .collect();
    let mut dirs: Vec<String> = fs
        .list(Path::new("/data/data/default/t"))
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|d| !d.starts_with('.'))
        .collect();
    dirs.sort();
    let mut serving_sorted = serving.clone();
    serving_sorted.sort();
    if dirs != serving_sorted {
        return Err(format!(
            "region directories {dirs:?} but serving regions {serving:?}"
        ));
    }
    Ok(())
}

/// Runs one case; returns whether the fault fired during the change.
fn run(seed: u64) -> Result<bool, String> {
    let mut rng = Rng::new(seed);
    let fs = FaultyFs::new();
    let conn = open(&fs).map_err(|e| e.to_string())?;
    setup(&conn, &mut rng);
    let fault = if rng.below(3) == 0 {
        Fault::random(rng.next(), 20)
    } else {
        Fault::Die { n: rng.below(40) }
    };
    let (fired, trace) = support::crash_during(&fs, &mut rng, fault, conn, change);
    let conn = open(&fs).map_err(|e| format!("reopen failed: {e} ({trace})"))?;
    verify(&conn).map_err(|e| format!("{e} ({trace})"))?;
    no_leftovers(&conn, &fs).map_err(|e| format!("{e} ({trace})"))?;
    // And once more, after a clean close.
    conn.close().map_err(|e| e.to_string())?;
    let conn = open(&fs).map_err(|e| format!("second reopen failed: {e} ({trace})"))?;
    verify(&conn).map_err(|e| format!("after a clean reopen: {e} ({trace})"))?;
    conn.close().map_err(|e| e.to_string())?;
    Ok(fired)
}

#[test]
fn catalog_changes_survive_crashes_at_any_step() {
    support::crash_seeds(
        "BASALT_CATALOG_CRASH_SEEDS",
        SEEDS,
        Duration::from_secs(90),
        4,
        run,
    );
}

/// Writes until the table has split by itself several times, then keeps writing while the
/// process dies at a random step of whatever runs (flushes, automatic splits, compactions of
/// references, cleanups, WAL appends); every acknowledged row must read back after reopening.
fn auto_split_then_die(seed: u64) -> Result<(), String> {
    let mut rng = Rng::new(seed);
    let fs = FaultyFs::new();
    let conn = Connection::builder()
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .open()
        .map_err(|e| e.to_string())?;
    let mut d = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    d.memstore_flushsize = 1 << 20;
    d.max_filesize = 2 << 20;
    conn.admin().create_table(d).map_err(|e| e.to_string())?;
    let t = conn.table("t").unwrap();
    let value = vec![b'x'; 1000];
    let key = |i: u64| format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut acked = 0u64;
    while conn.admin().regions(&name("t")).map_or(0, |r| r.len()) < 4 {
        if Instant::now() > deadline || acked > 200_000 {
            return Err(format!("no 4 regions after {acked} rows"));
        }
        // Splits wait for the background flushes and compactions of the daughters'
        // references; a writer that never pauses can outrun them on two cores.
        if acked % 1000 == 999 {
            std::thread::sleep(Duration::from_millis(20));
        }
        t.put(&Put::new(key(acked)).add_column("cf", "q", value.clone()))
            .map_err(|e| e.to_string())?;
        acked += 1;
    }
    let splits_before = conn.admin().regions(&name("t")).unwrap().len();
    // Steps are mostly WAL appends (one per put): dying within the next 20,000 lands
    // anywhere among several more automatic splits, their flushes and compactions.
    fs.arm(Fault::Die {
        n: rng.below(20_000),
    });
    let writing_until = Instant::now() + Duration::from_secs(20);
    while fs.fired() == 0 && Instant::now() < writing_until {
        match t.put(&Put::new(key(acked)).add_column("cf", "q", value.clone())) {
            Ok(()) => acked += 1,
            Err(_) => break,
        }
    }
    eprintln!(
        "seed {seed}: died: {}, {acked} rows acknowledged, {splits_before} regions when armed, {} at death",
        fs.fired() > 0,
        conn.admin().regions(&name("t")).map_or(0, |r| r.len())
    );
    fs.disarm();
    fs.kill();
    drop((t, conn));
    let conn = self::open(&fs).map_err(|e| format!("reopen failed: {e}"))?;
    let t = conn.table("t").unwrap();
    let regions = conn
        .admin()
        .regions(&name("t"))
        .map_err(|e| e.to_string())?;
    for w in regions.windows(2) {
        if w[0].end_key != w[1].start_key {
            return Err(format!("gap or overlap between {:?} and {:?}", w[0], w[1]));
        }
    }
    let rows: std::collections::BTreeSet<Bytes> = t
        .scan(&Scan::new())
        .map_err(|e| e.to_string())?
        .map(|r| r.map(|r| r.row))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    for i in 0..acked {
        if !rows.contains(key(i).as_bytes()) {
            return Err(format!(
                "acknowledged row {i} of {acked} lost ({splits_before} regions when armed)"
            ));
        }
    }
    conn.close().map_err(|e| e.to_string())
}

#[test]
fn a_table_that_split_by_itself_survives_dying_mid_work() {
    let seeds = std::env::var("BASALT_AUTO_SPLIT_CRASH_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for seed in 0..seeds {
        if let Err(e) = auto_split_then_die(seed) {
            panic!("seed {seed}: {e}");
        }
    }
}
