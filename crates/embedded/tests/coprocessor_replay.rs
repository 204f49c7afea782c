//! A coprocessor sees the WAL replayed after a crash (issue 50): a delete and puts whose index
//! writes failed (the index table was disabled) are in the base table's WAL only; the process
//! dies; as the base region reopens, the secondary-index module is handed every replayed edit,
//! and the index writes it asks for are made once the region is open: the index ends equal to
//! the base table, the deleted row unindexed and the put rows indexed.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_client::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_coprocessor::testing::example;
use basalt_coprocessor_sdk::index;
use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Delete, Error, Put, Scan, TableDescriptor, TableName,
};
use basalt_fs::FaultyFs;

fn index_rows(client: &Arc<dyn Client>, index: &TableName) -> BTreeSet<Bytes> {
    Arc::clone(client)
        .scan(index, &Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row)
        .collect()
}

#[test]
fn replayed_edits_are_indexed_after_a_crash() {
    let fs = FaultyFs::new();
    let conn = support::open_after_crash(&fs, |b| b).unwrap();
    let client: Arc<dyn Client> = Arc::new(conn.clone());
    let (base, idx) = (
        TableName::parse("people").unwrap(),
        TableName::parse("people_idx").unwrap(),
    );
    client
        .create_table(
            TableDescriptor::named("people_idx")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("i")),
            &[],
        )
        .unwrap();
    let mut desc = TableDescriptor::named("people")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    desc.set_attribute(
        "coprocessor$1",
        &format!(
            "file://{}||column=f:city,index=people_idx,write=people_idx",
            example("secondary_index").display()
        ),
    )
    .unwrap();
    client.create_table(desc, &[]).unwrap();

    // r0 is indexed while the index table is enabled; its delete below is not.
    client
        .put(&base, &Put::new("r0").add_column("f", "city", "city of r0"))
        .unwrap();
    assert_eq!(index_rows(&client, &idx).len(), 1);
    client.disable_table(&idx).unwrap();
    match client.delete(&base, &Delete::new("r0")) {
        Err(Error::Coprocessor(m)) => assert!(m.contains("people_idx"), "{m}"),
        other => panic!("the index delete did not fail: {other:?}"),
    }
    let rows = ["r1", "r2", "r3"];
    for row in rows {
        let put = Put::new(row).add_column("f", "city", format!("city of {row}"));
        // The base row is written; the index write after it fails, and says so.
        match client.put(&base, &put) {
            Err(Error::Coprocessor(m)) => assert!(m.contains("people_idx"), "{m}"),
            other => panic!("the index write did not fail: {other:?}"),
        }
    }
    client.enable_table(&idx).unwrap();
    assert_eq!(
        index_rows(&client, &idx).len(),
        1,
        "r0's index row outlived its delete"
    );

    // The process dies before the base table flushed: its edits are in the WAL only.
    fs.kill();
    drop((client, conn));
    let conn = support::open_after_crash(&fs, |b| b).unwrap();
    let client: Arc<dyn Client> = Arc::new(conn);
    let wanted: BTreeSet<Bytes> = rows
        .iter()
        .map(|row| {
            Bytes::from(index::key(
                format!("city of {row}").as_bytes(),
                row.as_bytes(),
            ))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    while index_rows(&client, &idx) != wanted {
        assert!(
            Instant::now() < deadline,
            "the replayed edits were not indexed: {:?}",
            index_rows(&client, &idx)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
