//! Issue 33's crash proof for snapshots, restores and bulk loads: the process dies (or the
//! power goes) at a random step of `snapshot`, `restore_snapshot` or a region's bulk load,
//! through the fault-injecting file system. After reopening, the state is the one before or
//! the one after, never half: a snapshot is listed whole (a clone of it reads the table's
//! rows) or not at all; a restored table reads as it was or as the snapshot, with the
//! matching schema; a bulk load's two families' files are both read or neither; and no
//! region directory is left that no catalog row owns.
//!
//! `BASALT_SNAPSHOT_CRASH_SEEDS` sets how many seeds run (default 120; the test also stops
//! after 60 s).
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::path::Path;
use std::time::Duration;

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, DataClient, Durability, Put, Scan, TableDescriptor,
    TableName,
};
use basalt_fs::{Fault, FaultyFs, FileSystem};
use support::SeededRng as Rng;

const SEEDS: u64 = 120;
const ROWS: u64 = 120;

fn open(fs: &FaultyFs) -> basalt_embedded::Result<Connection> {
    support::open_after_crash(fs, |b| {
        b.auto_split(false)
            .major_compaction_interval(Duration::ZERO)
    })
}

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn row(i: u64) -> String {
    format!("row{i:04}")
}

/// Every row of `table` as (row, family, value) triples.
fn contents(conn: &Connection, table: &str) -> Result<Vec<(String, String, String)>, String> {
    let t = conn.table(table).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for r in t.scan(&Scan::new()).map_err(|e| e.to_string())? {
        let r = r.map_err(|e| e.to_string())?;
        for c in r.cells.iter() {
            out.push((
                String::from_utf8_lossy(c.row()).into_owned(),
                String::from_utf8_lossy(c.family()).into_owned(),
                String::from_utf8_lossy(c.value()).into_owned(),
            ));
        }
    }
    Ok(out)
}

fn families(conn: &Connection) -> Result<Vec<String>, String> {
    Ok(conn
        .admin()
        .describe_table(&t())
        .map_err(|e| e.to_string())?
        .families()
        .iter()
        .map(|f| String::from_utf8_lossy(&f.name).into_owned())
        .collect())
}

/// Table `t` in two regions, every row written (`v1`), snapshot `s0` taken, then the table
/// changed: rows overwritten (`v2`), a family `g` added and written.
fn setup(conn: &Connection) {
    let admin = conn.admin();
    let mut d = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"))
        .with_durability(Durability::FsyncWal);
    d.compaction_enabled = false;
    admin
        .create_table_with_splits(d, &[Bytes::from(row(ROWS / 2))])
        .unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..ROWS {
        table
            .put(&Put::new(row(i)).add_column("f", "q", "v1"))
            .unwrap();
    }
    SnapshotAdmin::snapshot(conn, "s0", &t()).unwrap();
    admin
        .add_column_family(&t(), ColumnFamilyDescriptor::new("g"))
        .unwrap();
    for i in (0..ROWS).step_by(3) {
        table
            .put(
                &Put::new(row(i))
                    .add_column("f", "q", "v2")
                    .add_column("g", "q", "g"),
            )
            .unwrap();
    }
}

/// After the cleanup, every region directory of `t` belongs to one of its regions.
fn no_leftovers(conn: &Connection, fs: &FaultyFs) -> Result<(), String> {
    conn.admin()
        .run_catalog_janitor()
        .map_err(|e| e.to_string())?;
    let mut serving: Vec<String> = conn
        .admin()
        .regions(&t())
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|r| r.encoded_name)
        .collect();
    serving.sort();
    let mut dirs: Vec<String> = fs
        .list(Path::new("/data/data/default/t"))
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|d| !d.starts_with('.'))
        .collect();
    dirs.sort();
    if dirs != serving {
        return Err(format!("region directories {dirs:?}, regions {serving:?}"));
    }
    Ok(())
}

/// The change a crash interrupts, and the check of what the reopened engine holds.
#[derive(Debug, Clone, Copy)]
enum Change {
    Snapshot,
    Restore,
    BulkLoad,
}

/// Rows `bulk000`.. in the first region, one cell in each family.
fn bulk_cells() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for i in 0..50 {
        for family in ["f", "g"] {
            out.push((
                format!("bulk{i:03}"),
                family.to_owned(),
                format!("b{family}"),
            ));
        }
    }
    out
}

/// Writes the bulk load's prepared files (`/staging/<family>/file`), one per family.
fn prepare_bulk(fs: &FaultyFs) -> Vec<(Bytes, std::path::PathBuf)> {
    let mut files = Vec::new();
    for family in ["f", "g"] {
        let path = std::path::PathBuf::from(format!("/staging/{family}/file"));
        fs.create_dir_all(path.parent().unwrap()).unwrap();
        let mut w = basalt_storefile::StoreFileWriter::create(
            std::sync::Arc::new(fs.clone()),
            &path,
            basalt_storefile::WriterOptions::for_family(&ColumnFamilyDescriptor::new(family)),
        )
        .unwrap();
        for i in 0..50 {
            let row = format!("bulk{i:03}");
            w.append(&basalt_embedded::Cell::put(
                row.as_bytes(),
                family.as_bytes(),
                b"q",
                500,
                format!("b{family}").as_bytes(),
            ))
            .unwrap();
        }
        w.finish().unwrap();
        files.push((Bytes::from(family.to_owned()), path));
    }
    files
}

fn change(conn: &Connection, what: Change, files: &[(Bytes, std::path::PathBuf)]) -> String {
    match what {
        Change::BulkLoad => format!(
            "bulk load: {:?}",
            DataClient::bulk_load(conn, &t(), b"bulk000", files)
        ),
        Change::Snapshot => format!("snapshot: {:?}", SnapshotAdmin::snapshot(conn, "s1", &t())),
        Change::Restore => format!("restore: {:?}", SnapshotAdmin::restore_snapshot(conn, "s0")),
    }
}

fn verify(
    conn: &Connection,
    what: Change,
    before: &[(String, String, String)],
    snapshot: &[(String, String, String)],
) -> Result<(), String> {
    match what {
        Change::BulkLoad => {
            let got = contents(conn, "t")?;
            let mut loaded: Vec<_> = before.iter().cloned().chain(bulk_cells()).collect();
            loaded.sort();
            if got == before || got == loaded {
                Ok(())
            } else {
                let bulk = got.iter().filter(|c| c.0.starts_with("bulk")).count();
                Err(format!("half a bulk load: {bulk} of its 100 cells"))
            }
        }
        Change::Snapshot => {
            let got = contents(conn, "t")?;
            if got != before {
                let differ = got.iter().zip(before).find(|(a, b)| a != b);
                return Err(format!(
                    "the table changed under a snapshot: {} cells for {}, first difference \
                     {differ:?}",
                    got.len(),
                    before.len()
                ));
            }
            let listed = SnapshotAdmin::list_snapshots(conn).map_err(|e| e.to_string())?;
            if listed.iter().any(|s| s.name == "s1") {
                let c = TableName::parse("c").unwrap();
                SnapshotAdmin::clone_snapshot(conn, "s1", &c).map_err(|e| e.to_string())?;
                if contents(conn, "c")? != before {
                    return Err("a listed snapshot is not whole".into());
                }
            }
            Ok(())
        }
        Change::Restore => {
            let admin = conn.admin();
            if admin.is_table_enabled(&t()).map_err(|e| e.to_string())? {
                return Err("the table is enabled".into());
            }
            admin.enable_table(&t()).map_err(|e| e.to_string())?;
            let got = contents(conn, "t")?;
            let families = families(conn)?;
            let as_before = got == before && families == ["f", "g"];
            let restored = got == snapshot && families == ["f"];
            if as_before || restored {
                Ok(())
            } else {
                Err(format!(
                    "neither before nor restored: {} cells, families {families:?}",
                    got.len()
                ))
            }
        }
    }
}

/// Runs one case; returns whether the fault fired during the change.
fn run(seed: u64) -> Result<bool, String> {
    let mut rng = Rng::new(seed);
    let what = match rng.below(3) {
        0 => Change::Snapshot,
        1 => Change::Restore,
        _ => Change::BulkLoad,
    };
    let fs = FaultyFs::new();
    let conn = open(&fs).map_err(|e| e.to_string())?;
    setup(&conn);
    let before = contents(&conn, "t")?;
    let files = prepare_bulk(&fs);
    let snapshot: Vec<_> = (0..ROWS)
        .map(|i| (row(i), "f".to_owned(), "v1".to_owned()))
        .collect();
    if matches!(what, Change::Restore) {
        conn.admin()
            .disable_table(&t())
            .map_err(|e| e.to_string())?;
    }
    let fault = if rng.below(4) == 0 {
        Fault::random(rng.next(), 30)
    } else {
        Fault::Die { n: rng.below(60) }
    };
    let (fired, trace) =
        support::crash_during(&fs, &mut rng, fault, conn, |c, _| change(c, what, &files));
    let conn = open(&fs).map_err(|e| format!("reopen failed: {e} ({trace})"))?;
    verify(&conn, what, &before, &snapshot).map_err(|e| format!("{e} ({trace})"))?;
    no_leftovers(&conn, &fs).map_err(|e| format!("{e} ({trace})"))?;
    conn.close().map_err(|e| e.to_string())?;
    Ok(fired)
}

#[test]
fn snapshots_restores_and_bulk_loads_survive_crashes_at_any_step() {
    support::crash_seeds(
        "BASALT_SNAPSHOT_CRASH_SEEDS",
        SEEDS,
        Duration::from_secs(60),
        3,
        run,
    );
}
