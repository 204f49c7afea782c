//! `hbase:meta` sorts its rows as HBase's meta comparator does (table, then start key, then
//! region id), so a row's region is found by a reversed scan from `<table>,<row>,99999999999999`
//! whatever bytes the row holds; and a data directory written before (version 2, meta in plain
//! byte order) is converted when opened, also when the conversion itself is interrupted.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::path::Path;
use std::sync::Arc;

use basalt_embedded::{Bytes, ColumnFamilyDescriptor, Connection, Get, Put, Scan, TableDescriptor};
use basalt_fs::{Fault, FaultyFs, FileSystem};
use basalt_region::meta_keys;

/// Split points that plain byte order would put in the wrong place among meta's rows.
fn awkward_keys() -> Vec<Bytes> {
    let every_byte: Vec<u8> = (0..=255u8).collect();
    vec![
        Bytes::from_static(b"\x00"),
        Bytes::from_static(b"\x00,\xff"),
        Bytes::from_static(b","),
        Bytes::from_static(b"a,b,c"),
        Bytes::from(every_byte),
        Bytes::from_static(b"\xff\xff"),
    ]
}

fn create_tables(conn: &Connection) {
    let admin = conn.admin();
    for (name, splits) in [
        ("t", awkward_keys()),
        ("t1", vec![Bytes::from_static(b"m")]),
        ("t-x", vec![]),
    ] {
        let desc = TableDescriptor::named(name)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f"));
        admin.create_table_with_splits(desc, &splits).unwrap();
    }
}

/// Every row of meta, in the order a scan returns them.
fn meta_rows(conn: &Connection) -> Vec<Bytes> {
    conn.table("hbase:meta")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row)
        .collect()
}

/// The start key of the region a client finds for `row` of table `t` the way HBase's
/// clients look it up: a reversed scan of meta from `t,<row>,99999999999999`, one row.
fn located(conn: &Connection, row: &[u8]) -> Bytes {
    let mut from = b"t,".to_vec();
    from.extend_from_slice(row);
    from.extend_from_slice(b",99999999999999");
    let scan = Scan::new()
        .reversed(true)
        .with_start_row(from)
        .with_stop_row(&b"t,,"[..])
        .add_family("info")
        .with_limit(1);
    let found: Vec<_> = conn
        .table("hbase:meta")
        .unwrap()
        .scan(&scan)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(found.len(), 1, "no region for {row:?}");
    let name = &found[0].row;
    // `t,<start key>,<id>.<encoded>.`: the start key is between the first and last comma.
    let first = name.iter().position(|&b| b == b',').unwrap();
    let last = name.iter().rposition(|&b| b == b',').unwrap();
    Bytes::copy_from_slice(&name[first + 1..last])
}

fn check_order_and_lookups(conn: &Connection) {
    let rows = meta_rows(conn);
    for w in rows.windows(2) {
        assert_eq!(
            meta_keys::compare_rows(&w[0], &w[1]),
            std::cmp::Ordering::Less,
            "{:?} before {:?}",
            String::from_utf8_lossy(&w[0]),
            String::from_utf8_lossy(&w[1])
        );
    }
    let mut keys = awkward_keys();
    keys.sort();
    for (i, key) in keys.iter().enumerate() {
        assert_eq!(&located(conn, key), key, "the region starting at {key:?}");
        let mut after = key.to_vec();
        after.push(0);
        assert_eq!(&located(conn, &after), key, "a row just after {key:?}");
        let mut before = key.to_vec();
        if let Some(last) = before.last_mut().filter(|b| **b > 0) {
            *last -= 1;
            let expected = if i == 0 {
                Bytes::new()
            } else {
                keys[i - 1].clone()
            };
            assert_eq!(
                located(conn, &before),
                expected,
                "a row just before {key:?}"
            );
        }
    }
    assert_eq!(located(conn, b""), Bytes::new());
}

#[test]
fn meta_rows_sort_as_hbase_meta_and_every_row_finds_its_region() {
    let conn = Connection::in_memory();
    create_tables(&conn);
    check_order_and_lookups(&conn);
    // The table's state row comes before its regions, and the tables do not interleave.
    let rows = meta_rows(&conn);
    let t = rows.iter().position(|r| &r[..] == b"t").unwrap();
    assert!(rows[t + 1].starts_with(b"t,"));
    let t_regions = rows.iter().filter(|r| r.starts_with(b"t,")).count();
    assert_eq!(t_regions, awkward_keys().len() + 1);
    assert!(
        rows[t + 1..=t + t_regions]
            .iter()
            .all(|r| r.starts_with(b"t,"))
    );
}

fn write_rows(conn: &Connection) {
    let t = conn.table("t").unwrap();
    for key in awkward_keys() {
        t.put(&Put::new(key.clone()).add_column("f", "q", key.clone()))
            .unwrap();
    }
}

fn check_rows(conn: &Connection) {
    let t = conn.table("t").unwrap();
    for key in awkward_keys() {
        let got = t.get(&Get::new(key.clone())).unwrap();
        assert_eq!(got.cells.len(), 1, "row {key:?}");
        assert_eq!(got.cells[0].value(), &key[..]);
    }
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), awkward_keys().len());
}

/// A version 2 directory with tables, rows, and catalog changes still only in the log.
fn version_2_directory() -> FaultyFs {
    let fs = FaultyFs::new();
    let conn = Connection::builder()
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .plain_meta_for_tests()
        .open()
        .unwrap();
    create_tables(&conn);
    conn.admin().flush(&"hbase:meta".parse().unwrap()).unwrap();
    let admin = conn.admin();
    let desc = TableDescriptor::named("late")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    admin
        .create_table_with_splits(desc, &[Bytes::from_static(b"\x00")])
        .unwrap();
    write_rows(&conn);
    fs.kill();
    drop(conn);
    fs
}

fn version(fs: &FaultyFs) -> String {
    let bytes = basalt_fs::read_all(fs, Path::new("/data/basalt.version")).unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn a_version_2_directory_is_converted_when_opened() {
    let fs = version_2_directory();
    assert_eq!(version(&fs), "basalt-data 2\n");
    let conn = support::open_after_crash(&fs, |b| b).unwrap();
    assert_eq!(version(&fs), "basalt-data 3\n");
    check_order_and_lookups(&conn);
    check_rows(&conn);
    assert!(
        conn.table("late").is_ok(),
        "a table only in the log survives"
    );
    assert!(
        !fs.exists(Path::new("/data/data/hbase/meta/1588230740.v2"))
            .unwrap()
    );
    conn.close().unwrap();
    let conn = support::open_after_crash(&fs, |b| b).unwrap();
    check_order_and_lookups(&conn);
    check_rows(&conn);
}

/// The process dies at every step of the conversion in turn; the next open finishes it.
#[test]
fn a_conversion_interrupted_anywhere_finishes_on_the_next_open() {
    for n in 0..2_000 {
        let fs = version_2_directory();
        fs.kill();
        fs.arm(Fault::Die { n });
        let first = support::open_after_crash(&fs, |b| b);
        let fired = fs.fired() > 0;
        drop(first);
        fs.kill();
        fs.disarm();
        let conn = support::open_after_crash(&fs, |b| b)
            .unwrap_or_else(|e| panic!("open after dying at step {n}: {e}"));
        assert_eq!(version(&fs), "basalt-data 3\n", "step {n}");
        check_order_and_lookups(&conn);
        check_rows(&conn);
        if !fired {
            // The conversion and the open around it take dozens of changing steps; each
            // was a place to die.
            assert!(n > 20, "only {n} steps: did the conversion run?");
            return;
        }
    }
    panic!("the conversion took more than 2,000 steps");
}
