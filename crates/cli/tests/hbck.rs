//! `basalt hbck` (issue 47) against a running server: a hole, an overlap, an orphan
//! directory, a region left closed and a dead server's unsplit WAL are each put into a data
//! directory by hand; the report names each, and its repair fixes it.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::sync::Arc;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Connection, DataClient, Get, Put, RegionInfo,
    ServerAdmin, TableDescriptor, TableName,
};
use support::{Server, basalt};

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn read(conn: &dyn Client, row: &str) -> Option<String> {
    let r = conn.get(&t(), &Get::new(row.to_owned())).ok()?;
    r.value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// Regions `[,b) [b,d) [d,f) [f,h) [h,j) [j,l) [l,)` with a row in each, flushed; then
/// `[b,d)` is gone from meta and disk (a hole), `[f,h)` only from meta (an orphan directory,
/// and a hole until it is put back), and a region `[jj,k)` inside `[j,l)` is added (an
/// overlap). Returns the encoded names of `[,b)` and `[h,j)`.
fn damaged(data: &std::path::Path) -> (RegionInfo, RegionInfo) {
    let conn = Connection::open(data).unwrap();
    let keys: Vec<Bytes> = ["b", "d", "f", "h", "j", "l"]
        .iter()
        .map(|k| Bytes::from(*k))
        .collect();
    conn.create_table(
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &keys,
    )
    .unwrap();
    for row in ["a1", "b1", "d1", "f1", "h1", "jz", "l1"] {
        conn.put(&t(), &Put::new(row).add_column("f", "q", row))
            .unwrap();
    }
    conn.flush(&t()).unwrap();
    let master = conn.engine().master();
    let info = |start: &str| {
        master
            .table(&t())
            .unwrap()
            .placed_for(start.as_bytes())
            .unwrap()
            .info
    };
    let (first, b, f, h, j) = (info(""), info("b"), info("f"), info("h"), info("j"));
    let catalog = master.catalog();
    master
        .meta_batch()
        .delete_row(b.region_name())
        .delete_row(f.region_name())
        .commit(catalog.as_ref())
        .unwrap();
    let inside = RegionInfo::new(t(), Bytes::from("jj"), Bytes::from("k"), j.region_id + 1);
    basalt_regionserver::layout::write_region_info(
        master.fs.as_ref(),
        &master.region_dir(&inside),
        &inside,
    )
    .unwrap();
    let server =
        basalt_embedded::ServerName::parse(&master.servers.all()[0].name().to_string()).unwrap();
    master
        .meta_batch()
        .region(&inside, "OPEN", &server)
        .commit(catalog.as_ref())
        .unwrap();
    let b_dir = master.region_dir(&b);
    conn.close().unwrap();
    // Once closed: the open region would write into its directory as it closes.
    std::fs::remove_dir_all(b_dir).unwrap();
    (first, h)
}

/// A WAL directory of a server that never ran here, holding one edit of `region`.
fn dead_server_wal(data: &std::path::Path, region: &RegionInfo) -> String {
    let name = "127.0.0.1,1,1";
    let fs: Arc<dyn basalt_fs::FileSystem> = Arc::new(basalt_fs::LocalFs);
    let wal = basalt_wal::Wal::create(
        fs,
        &data.join("WALs").join(name),
        &data.join("oldWALs"),
        basalt_wal::WalConfig::default(),
    )
    .unwrap();
    wal.append(
        &basalt_wal::WalEdit {
            region: region.encoded_name(),
            table: "t".into(),
            seq_id: 1 << 40,
            write_time_ms: 1,
            origin: basalt_wal::EditOrigin::default(),
            cells: vec![basalt_embedded::Cell::put(
                b"a-wal", b"f", b"q", 1, b"a-wal",
            )],
        },
        basalt_embedded::Durability::SyncWal,
    )
    .unwrap();
    wal.close().unwrap();
    name.to_owned()
}

fn hbck(rpc: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["hbck", "--connect", rpc];
    all.extend_from_slice(args);
    basalt(&all)
}

#[test]
fn hbck_finds_each_injected_inconsistency_and_its_repair_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let (first, h) = damaged(&data);
    let server = Server::start_in(&data, &[]);
    // A read of a closed region fails after this long, not the default minutes.
    let config = RemoteConfig {
        operation_timeout: std::time::Duration::from_secs(3),
        ..RemoteConfig::default()
    };
    let conn = Arc::new(RemoteConnection::connect(server.rpc.parse().unwrap(), config).unwrap());
    conn.unassign(h.encoded_name().as_bytes()).unwrap();
    let dead = dead_server_wal(&data, &first);

    let (ok, out, err) = hbck(&server.rpc, &[]);
    assert!(!ok, "a damaged directory must fail the report: {out}{err}");
    for expected in [
        "HOLE (2)",
        "[b, d)",
        "[f, h)",
        "OVERLAP (1)",
        "ORPHAN_DIR (1)",
        "UNASSIGNED (1)",
        &h.encoded_name(),
        "UNSPLIT_WAL (1)",
        &dead,
    ] {
        assert!(out.contains(expected), "no {expected:?} in:\n{out}");
    }
    assert_eq!(read(conn.as_ref(), "h1"), None);
    assert_eq!(read(conn.as_ref(), "a-wal"), None);

    // The orphan directory goes back in meta, with its row.
    let (ok, out, err) = hbck(&server.rpc, &["addFsRegionsMissingInMeta", "t"]);
    assert!(ok, "{out}{err}");
    assert_eq!(read(conn.as_ref(), "f1").as_deref(), Some("f1"));
    // The hole gets an empty region, the overlapping pair becomes one with both's rows.
    let (ok, out, err) = hbck(&server.rpc, &["fixMeta"]);
    assert!(ok, "{out}{err}");
    conn.put(&t(), &Put::new("c2").add_column("f", "q", "c2"))
        .unwrap();
    assert_eq!(read(conn.as_ref(), "c2").as_deref(), Some("c2"));
    assert_eq!(read(conn.as_ref(), "jz").as_deref(), Some("jz"));
    // The closed region opens.
    let (ok, out, err) = hbck(&server.rpc, &["assigns", &h.encoded_name()]);
    assert!(ok, "{out}{err}");
    assert_eq!(read(conn.as_ref(), "h1").as_deref(), Some("h1"));
    // The dead server's log is split into its region, which replays it.
    let (ok, out, err) = hbck(&server.rpc, &["scheduleRecoveries", &dead]);
    assert!(ok, "{out}{err}");
    assert_eq!(read(conn.as_ref(), "a-wal").as_deref(), Some("a-wal"));

    let (ok, out, err) = hbck(&server.rpc, &[]);
    assert!(ok, "still inconsistent:\n{out}{err}");
    assert!(out.contains("no inconsistencies"), "{out}");
    // The rows no repair could bring back are the hole's: its directory was deleted.
    assert_eq!(read(conn.as_ref(), "b1"), None);
    for row in ["a1", "d1", "f1", "h1", "jz", "l1"] {
        assert_eq!(read(conn.as_ref(), row).as_deref(), Some(row), "{row}");
    }
}

#[test]
fn hbck_help_explains_each_repair() {
    let (ok, out, _) = basalt(&["hbck", "--help"]);
    assert!(ok);
    for sub in [
        "report",
        "assigns",
        "unassigns",
        "fixMeta",
        "addFsRegionsMissingInMeta",
        "archiveOrphans",
        "scheduleRecoveries",
    ] {
        assert!(out.contains(sub), "{sub} missing from:\n{out}");
    }
}
