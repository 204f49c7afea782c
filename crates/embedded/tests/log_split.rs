//! A dead server's log split by region (HBase's WALSplitter): each region's edits land in its
//! `recovered.edits/`, and whichever server opens the region next replays them before it
//! serves, then deletes them. Nothing written with SYNC_WAL is lost on the way.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;
use std::sync::Arc;

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, Get, ManualClock, Put, RegionInfo, ServerName,
    TableDescriptor, TableName,
};
use basalt_fs::{FaultyFs, FileSystem};
use basalt_region::RegionConfig;
use basalt_regionserver::{RECOVERED_EDITS, RegionServer, split_log};

fn open(fs: &FaultyFs, clock: &Arc<ManualClock>) -> Connection {
    Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .server_name("db1.example:16020")
        .open()
        .unwrap()
}

#[test]
fn a_split_log_is_replayed_by_the_regions_next_server() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let name = TableName::parse("t").unwrap();
    // A run that made the table and stopped cleanly...
    let conn = open(&fs, &clock);
    conn.admin()
        .create_table_with_splits(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[Bytes::from_static(b"m")],
        )
        .unwrap();
    let regions: Vec<RegionInfo> = conn
        .admin()
        .regions(&name)
        .unwrap()
        .iter()
        .map(|r| {
            RegionInfo::new(
                name.clone(),
                r.start_key.clone(),
                r.end_key.clone(),
                r.region_id,
            )
        })
        .collect();
    conn.close().unwrap();
    // ...and one killed after writes to both regions, nothing flushed.
    clock.advance(1000);
    let conn = open(&fs, &clock);
    let t = conn.table("t").unwrap();
    for row in ["a", "b", "x"] {
        t.put(&Put::new(row).add_column("f", "q", format!("v-{row}")))
            .unwrap();
    }
    let server = format!("db1.example,16020,{}", conn.server_start_code());
    fs.kill();
    drop((t, conn));

    // The master fences the dead server's directory and splits it.
    let wal_dir = Path::new("/data/WALs").join(&server);
    let splitting = Path::new("/data/WALs").join(format!("{server}-splitting"));
    fs.rename(&wal_dir, &splitting).unwrap();
    // The three puts, and meta's own edits of the open (meta's directory has no
    // `.regioninfo`, and its edits are split like any region's).
    let written = split_log(&fs, Path::new("/data"), &splitting, false).unwrap();
    assert!(written > 3, "{written}");
    let meta_edits = Path::new("/data/data/hbase/meta/1588230740").join(RECOVERED_EDITS);
    assert_eq!(fs.list(&meta_edits).unwrap().len(), 1);
    // Splitting again (a master that died in the middle) writes the same files.
    assert_eq!(
        split_log(&fs, Path::new("/data"), &splitting, false).unwrap(),
        written
    );
    let region_dir =
        |info: &RegionInfo| Path::new("/data/data/default/t").join(info.encoded_name());
    for info in &regions {
        let edits = fs.list(&region_dir(info).join(RECOVERED_EDITS)).unwrap();
        assert_eq!(edits.len(), 1, "{edits:?}");
    }

    // Another server opens the regions: the edits are back, and then gone from the directory.
    let (tx, _rx) = std::sync::mpsc::channel();
    let rs = RegionServer::new(
        ServerName {
            host_port: "db2.example:16020".into(),
            start_code: 1,
        },
        clock.clone(),
        RegionConfig::default(),
        Arc::new(fs.clone()),
        "/data".into(),
        tx,
        None,
    );
    for (info, rows) in regions.iter().zip([&["a", "b"][..], &["x"][..]]) {
        let region = rs.assign(info).unwrap();
        for row in rows {
            let got = region.get(&Get::new(row.to_string())).unwrap();
            assert_eq!(got.value(b"f", b"q"), Some(format!("v-{row}").as_bytes()));
        }
        assert!(!fs.exists(&region_dir(info).join(RECOVERED_EDITS)).unwrap());
    }
}
