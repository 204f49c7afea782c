//! The async client's tables by logical keys (`AsyncConnection::logical_table`): for each key
//! layout, the same operations on a plain table and on a laid-out one, over the native RPC,
//! answer the same, scans (bucket merges, sorted reads, reversed, bounded, limited) included;
//! underneath, the laid-out table's rows are stored by the layout's keys.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_common::key_layout::{KeyLayout, METADATA_KEY};
use basalt_embedded::remote::{AsyncConnection, AsyncLaidTable, RemoteConfig};
use basalt_embedded::{
    BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, ColumnFamilyDescriptor,
    CompareOperator, Condition, Connection, Delete, Get, Increment, Put, RowMutations, RowResult,
    Scan, TableDescriptor,
};

/// A row without its cells' timestamps (increments take the server's clock).
fn text(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                String::from_utf8_lossy(c.value())
            )
        })
        .collect();
    format!("{:?} {}", r.row, cells.join(" "))
}

/// Keys with an 8-byte big-endian timestamp first, as a time-bucketed table needs.
fn key(n: u64) -> Bytes {
    let mut k = (1_700_000_000_000u64 + n * 7919).to_be_bytes().to_vec();
    k.extend_from_slice(format!("-{}", n % 5).as_bytes());
    Bytes::from(k)
}

fn create(conn: &Connection, table: &str, layout: Option<&str>) {
    let mut d = TableDescriptor::named(table)
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    if let Some(l) = layout {
        d.metadata.insert(METADATA_KEY.into(), l.into());
    }
    conn.admin().create_table(d).unwrap();
}

/// The same writes to a table.
async fn write(t: &AsyncLaidTable) -> Vec<String> {
    let mut log = Vec::new();
    for n in 0..60 {
        t.put(&Put::new(key(n)).add_column_at("f", "q", 5, format!("v{n}")))
            .await
            .unwrap();
    }
    let ops: Vec<BatchOp> = (60..70)
        .map(|n| BatchOp::Put(Put::new(key(n)).add_column_at("f", "q", 5, format!("b{n}"))))
        .chain([BatchOp::Get(Get::new(key(3)))])
        .collect();
    for outcome in t.batch(&ops).await {
        log.push(match outcome.unwrap() {
            BatchOutcome::Row(r) => text(&r),
            other => format!("{other:?}"),
        });
    }
    let counted = t
        .increment(&Increment::new(key(4)).add_column("f", "n", 3))
        .await
        .unwrap();
    log.push(text(&counted));
    let cam = CheckAndMutate::new(
        key(5),
        Condition::matches("f", "q", CompareOperator::Equal, "v5"),
        CheckAction::Put(Put::new(key(5)).add_column_at("f", "c", 5, "checked")),
    );
    let checked = t.check_and_mutate(&cam).await.unwrap();
    log.push(format!("checked {}", checked.success));
    let rm = RowMutations::new(key(6))
        .add_put(Put::new(key(6)).add_column_at("f", "m", 5, "both"))
        .add_delete(Delete::new(key(6)).add_columns("f", "q"));
    t.mutate_row(&rm).await.unwrap();
    t.delete(&Delete::new(key(7))).await.unwrap();
    for n in [0, 3, 5, 6, 7, 65] {
        log.push(text(&t.get(&Get::new(key(n))).await.unwrap()));
    }
    log
}

fn scans() -> Vec<Scan> {
    let (lo, hi) = (key(12), key(48));
    let mut out = vec![Scan::new(), Scan::new().with_limit(7)];
    let mut range = Scan::new()
        .with_start_row(lo.clone())
        .with_stop_row(hi.clone());
    out.push(range.clone());
    range.limit = Some(5);
    out.push(range);
    let mut back = Scan::new();
    back.reversed = true;
    out.push(back.clone());
    back.start_row = hi;
    back.stop_row = lo;
    out.push(back.clone());
    back.limit = Some(3);
    out.push(back);
    out
}

#[test]
fn logical_tables_answer_as_plain_tables_do_for_every_layout() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for layout in [
        "SALT BUCKETS=8",
        "TIME_BUCKETS BUCKETS=4",
        "HASH_PREFIX ALGORITHM=MD5 BYTES=2",
        "REVERSE",
    ] {
        let served = Connection::in_memory();
        create(&served, "plain", None);
        create(&served, "laid", Some(layout));
        let server = support::serve(&served);
        runtime.block_on(async {
            let conn = AsyncConnection::connect(server.local_addr(), RemoteConfig::default())
                .await
                .unwrap();
            let plain = conn.logical_table("plain").await.unwrap();
            let laid = conn.logical_table("laid").await.unwrap();
            assert!(plain.layout().is_none());
            assert_eq!(laid.layout(), Some(KeyLayout::parse(layout).unwrap()));
            assert_eq!(write(&plain).await, write(&laid).await, "{layout}: writes");
            for scan in scans() {
                let a: Vec<String> = plain.scan(&scan).await.unwrap().iter().map(text).collect();
                let b: Vec<String> = laid.scan(&scan).await.unwrap().iter().map(text).collect();
                assert!(!a.is_empty(), "{layout}: {scan:?} read nothing");
                assert_eq!(a, b, "{layout}: {scan:?}");
            }
            // Underneath, stored keys: each maps back to a logical key the table holds.
            let parsed = KeyLayout::parse(layout).unwrap();
            let raw = laid.raw().scan(&Scan::new()).await.unwrap();
            let logical = laid.scan(&Scan::new()).await.unwrap();
            assert_eq!(raw.len(), logical.len());
            for r in &raw {
                let l = parsed.logical(&r.row).unwrap();
                assert_ne!(l, r.row, "{layout}: a stored key is the logical one");
                assert!(logical.iter().any(|x| x.row == l), "{layout}: {l:?}");
            }
        });
        server.shutdown();
    }
}
