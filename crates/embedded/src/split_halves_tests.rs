//! Splits and merges in two halves, the region server's (files) and the master's (the catalog
//! commit): a process that dies after either half opens again with the change either not
//! made or made whole, and every row readable.

use std::sync::Arc;

use basalt_common::{Bytes, ColumnFamilyDescriptor, Get, Put, Scan, TableDescriptor, TableName};
use basalt_fs::{FileSystem, MemFs};

use basalt_region::Region;
use basalt_regionserver::PreparedSplit;

use basalt_master::procedures;

use crate::Connection;

const ROWS: usize = 200;

fn open(fs: &Arc<MemFs>) -> Connection {
    Connection::builder()
        .file_system(Arc::clone(fs) as Arc<dyn FileSystem>)
        .root("/data")
        .open()
        .unwrap()
}

/// The open region a name (full or encoded) names.
fn local(conn: &Connection, name: &[u8]) -> Arc<Region> {
    conn.engine.find_placed(name).unwrap().1.region.unwrap()
}

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

/// Table `t` split at `r100`, with `ROWS` rows.
fn with_rows(fs: &Arc<MemFs>) -> Connection {
    let conn = open(fs);
    conn.admin()
        .create_table_with_splits(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[Bytes::from_static(b"r100")],
        )
        .unwrap();
    let table = conn.table("t").unwrap();
    for i in 0..ROWS {
        table
            .put(&Put::new(format!("r{i:03}")).add_column("f", "q", format!("v{i}")))
            .unwrap();
    }
    conn
}

fn check_rows(conn: &Connection) {
    let table = conn.table("t").unwrap();
    assert_eq!(table.scan(&Scan::new()).unwrap().count(), ROWS);
    let row = table.get(&Get::new("r150")).unwrap();
    assert_eq!(row.value(b"f", b"q"), Some(&b"v150"[..]));
}

/// The region directories of `t` on the file system.
fn region_dirs(fs: &MemFs) -> Vec<String> {
    fs.list(std::path::Path::new("/data/data/default/t"))
        .unwrap()
        .into_iter()
        .filter(|n| !n.starts_with('.'))
        .collect()
}

fn starts(conn: &Connection) -> Vec<Bytes> {
    conn.admin()
        .regions(&t())
        .unwrap()
        .into_iter()
        .map(|r| r.start_key)
        .collect()
}

/// The region server's half of a split of `t`'s second region at `r150`, done: the parent
/// closed, the daughters' directories written.
fn prepared_split(conn: &Connection) -> (Arc<Region>, PreparedSplit) {
    let regions = conn.admin().regions(&t()).unwrap();
    let parent = local(conn, &regions[1].name);
    parent.flush().unwrap();
    let prepared = conn
        .engine
        .rs
        .prepare_split(&parent, Bytes::from_static(b"r150"), i64::MAX / 2)
        .unwrap();
    assert!(parent.is_closed());
    (parent, prepared)
}

#[test]
fn a_split_whose_catalog_commit_never_ran_is_undone_at_the_next_open() {
    let fs = Arc::new(MemFs::new());
    let conn = with_rows(&fs);
    let (parent, prepared) = prepared_split(&conn);
    assert_eq!(region_dirs(&fs).len(), 4, "two regions and two daughters");
    // The process dies here: no catalog change.
    drop((parent, prepared, conn));
    let conn = open(&fs);
    assert_eq!(starts(&conn), [Bytes::new(), Bytes::from_static(b"r100")]);
    assert_eq!(region_dirs(&fs).len(), 2, "the daughters' directories went");
    check_rows(&conn);
    conn.close().unwrap();
}

#[test]
fn a_split_committed_but_not_opened_is_finished_at_the_next_open() {
    let fs = Arc::new(MemFs::new());
    let conn = with_rows(&fs);
    let (parent, prepared) = prepared_split(&conn);
    procedures::commit_split(
        &conn.engine,
        parent.info(),
        &prepared.daughters,
        &conn.engine.rs.name,
    )
    .unwrap();
    // The process dies here: the daughters were never opened.
    drop((parent, prepared, conn));
    let conn = open(&fs);
    assert_eq!(
        starts(&conn),
        [
            Bytes::new(),
            Bytes::from_static(b"r100"),
            Bytes::from_static(b"r150")
        ]
    );
    check_rows(&conn);
    conn.close().unwrap();
}

#[test]
fn a_merge_dies_after_either_half_and_opens_whole() {
    for commit in [false, true] {
        let fs = Arc::new(MemFs::new());
        let conn = with_rows(&fs);
        let regions = conn.admin().regions(&t()).unwrap();
        let lo = local(&conn, &regions[0].name);
        let hi = local(&conn, &regions[1].name);
        lo.flush().unwrap();
        hi.flush().unwrap();
        let merged = basalt_common::RegionInfo::new(t(), Bytes::new(), Bytes::new(), i64::MAX / 2);
        conn.engine.rs.prepare_merge(&lo, &hi, &merged).unwrap();
        if commit {
            procedures::commit_merge(
                &conn.engine,
                [lo.info(), hi.info()],
                &merged,
                &conn.engine.rs.name,
            )
            .unwrap();
        }
        drop((lo, hi, conn));
        let conn = open(&fs);
        let expected = if commit {
            vec![Bytes::new()]
        } else {
            vec![Bytes::new(), Bytes::from_static(b"r100")]
        };
        assert_eq!(starts(&conn), expected, "committed: {commit}");
        check_rows(&conn);
        conn.close().unwrap();
    }
}
