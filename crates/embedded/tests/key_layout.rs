//! Issue 34's proof: a table with a declared key layout (salted, time-bucketed, hash-prefixed,
//! reversed), read and written through [`LayoutClient`] by logical keys, answers every
//! operation exactly as a plain table does: random puts, deletes, increments,
//! check-and-mutates and batches, then gets and scans in both directions, with limits and
//! value filters, compared result for result. Stored keys stay reachable underneath.

mod support;

use basalt_client::prelude::*;
use std::sync::Arc;

use basalt_common::filter::{Comparator, FilterSpec};
use basalt_common::key_layout::{KeyLayout, METADATA_KEY};
use basalt_common::ops::{CheckAction, CheckAndMutate, CompareOperator, Condition, Increment};
use basalt_embedded::{
    BatchOp, Bytes, Client, ColumnFamilyDescriptor, Connection, DataClient, Delete, Get,
    LayoutClient, Put, RowResult, Scan, ServerAdmin, TableDescriptor, TableName,
};
use support::SeededRng as Rng;

const SEEDS: u64 = 12;
const OPS: usize = 400;

fn name(s: &str) -> TableName {
    TableName::parse(s).expect("name")
}

fn create(client: &dyn Client, table: &str, layout: Option<&str>) {
    let mut d = TableDescriptor::named(table)
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("f").with_max_versions(3));
    if let Some(l) = layout {
        d.metadata.insert(METADATA_KEY.into(), l.into());
    }
    client.create_table(d, &[]).expect("create");
}

/// Keys with an 8-byte big-endian timestamp first (what a time-bucketed table needs), from a
/// small set so operations meet the same rows.
fn key(rng: &mut Rng) -> Bytes {
    let mut k = (1_700_000_000_000i64 + rng.below(40) as i64 * 7)
        .to_be_bytes()
        .to_vec();
    k.extend_from_slice(format!("-{}", rng.below(5)).as_bytes());
    Bytes::from(k)
}

fn text(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}/{}={}",
                String::from_utf8_lossy(c.row()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect();
    format!("{:?} {cells:?}", r.row)
}

fn scan_text(client: &Arc<LayoutClient>, table: &TableName, scan: &Scan) -> Vec<String> {
    Arc::clone(client)
        .scan(table, scan)
        .expect("scan")
        .map(|r| text(&r.expect("row")))
        .collect()
}

/// One random operation, applied to both tables; reads compare their answers.
fn step(rng: &mut Rng, client: &Arc<LayoutClient>, tables: [&TableName; 2]) -> Result<(), String> {
    let row = key(rng);
    let q = format!("q{}", rng.below(3));
    match rng.below(10) {
        0..=2 => {
            let v = format!("v{}", rng.below(100));
            let ts = 1_000 + rng.below(5) as i64;
            for t in tables {
                client
                    .put(
                        t,
                        &Put::new(row.clone()).add_column_at("f", q.clone(), ts, v.clone()),
                    )
                    .map_err(|e| e.to_string())?;
            }
        }
        3 => {
            let d = if rng.below(2) == 0 {
                Delete::new(row.clone())
            } else {
                Delete::new(row.clone()).add_columns("f", q.clone())
            };
            for t in tables {
                client.delete(t, &d).map_err(|e| e.to_string())?;
            }
        }
        4 => {
            let mut got = Vec::new();
            for t in tables {
                let r = client
                    .increment(t, &Increment::new(row.clone()).add_column("f", "n", 3))
                    .map_err(|e| e.to_string())?;
                got.push(r.value(b"f", b"n").map(<[u8]>::to_vec));
            }
            if got[0] != got[1] {
                return Err(format!("increment: {got:?}"));
            }
        }
        5 => {
            let mut got = Vec::new();
            for t in tables {
                let cam = CheckAndMutate::new(
                    row.clone(),
                    Condition::matches("f", q.clone(), CompareOperator::Equal, "v1"),
                    CheckAction::Put(Put::new(row.clone()).add_column("f", "c", "checked")),
                );
                got.push(
                    client
                        .check_and_mutate(t, &cam)
                        .map_err(|e| e.to_string())?
                        .success,
                );
            }
            if got[0] != got[1] {
                return Err(format!("check-and-mutate: {got:?}"));
            }
        }
        6 => {
            let other = key(rng);
            let mut got = Vec::new();
            for t in tables {
                let ops = [
                    BatchOp::Put(Put::new(other.clone()).add_column("f", "b", "batched")),
                    BatchOp::Get(Get::new(row.clone())),
                ];
                let out: Vec<String> = client
                    .batch(t, &ops)
                    .into_iter()
                    .map(|r| match r {
                        Ok(basalt_embedded::BatchOutcome::Row(r)) => text(&r),
                        other => format!("{other:?}"),
                    })
                    .collect();
                got.push(out);
            }
            if got[0] != got[1] {
                return Err(format!("batch: {got:?}"));
            }
        }
        7 => {
            let mut got = Vec::new();
            for t in tables {
                got.push(text(
                    &client
                        .get(t, &Get::new(row.clone()))
                        .map_err(|e| e.to_string())?,
                ));
            }
            if got[0] != got[1] {
                return Err(format!("get: {got:?}"));
            }
        }
        _ => {
            let mut scan = Scan::new();
            let (a, b) = (key(rng), key(rng));
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            scan.reversed = rng.below(2) == 0;
            match rng.below(3) {
                0 => {}
                1 if scan.reversed => scan.start_row = hi,
                1 => scan.start_row = lo,
                _ if scan.reversed => {
                    scan.start_row = hi;
                    scan.stop_row = lo;
                }
                _ => {
                    scan.start_row = lo;
                    scan.stop_row = hi;
                }
            }
            if rng.below(3) == 0 {
                scan.limit = Some(1 + rng.below(8) as usize);
            }
            if rng.below(3) == 0 {
                scan.max_versions = 3;
            }
            if rng.below(3) == 0 {
                scan = scan.with_filter(FilterSpec::Value(
                    CompareOperator::GreaterOrEqual,
                    Comparator::Binary(Bytes::from(format!("v{}", rng.below(100)))),
                ));
            }
            let plain = scan_text(client, tables[0], &scan);
            let laid = scan_text(client, tables[1], &scan);
            if plain != laid {
                let at = plain.iter().zip(&laid).take_while(|(a, b)| a == b).count();
                return Err(format!(
                    "scan {scan:?}: {} rows plain, {} with the layout; first difference at \
                     {at}: {:?} against {:?}",
                    plain.len(),
                    laid.len(),
                    plain.get(at),
                    laid.get(at)
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn tables_with_key_layouts_answer_as_plain_tables_do() {
    for layout in [
        "SALT BUCKETS=8",
        "TIME_BUCKETS BUCKETS=4",
        "HASH_PREFIX ALGORITHM=MD5 BYTES=2",
        "REVERSE",
    ] {
        for seed in 0..SEEDS {
            // A clock that stands still: both tables' server-stamped cells get one time.
            let (conn, _clock) = support::connection_at(1_000_000);
            let conn = Arc::new(conn);
            let client = Arc::new(LayoutClient::new(Arc::clone(&conn) as Arc<dyn Client>));
            create(client.as_ref(), "plain", None);
            create(client.as_ref(), "laid", Some(layout));
            let tables = [&name("plain"), &name("laid")];
            let mut rng = Rng::new(seed);
            for i in 0..OPS {
                if let Err(e) = step(&mut rng, &client, tables) {
                    panic!("{layout}, seed {seed}, op {i}: {e}");
                }
            }
            // Underneath, the rows are stored by the layout's keys.
            let parsed = KeyLayout::parse(layout).expect("layout");
            let raw: Vec<Bytes> = Arc::clone(client.raw())
                .scan(tables[1], &Scan::new())
                .expect("raw scan")
                .map(|r| r.expect("row").row)
                .collect();
            let logical: Vec<Bytes> = Arc::clone(&client)
                .scan(tables[1], &Scan::new())
                .expect("scan")
                .map(|r| r.expect("row").row)
                .collect();
            assert_eq!(raw.len(), logical.len());
            for r in &raw {
                let l = parsed.logical(r).expect("logical");
                assert_eq!(parsed.physical(&l).expect("physical"), *r);
            }
        }
    }
}

#[test]
fn a_layout_pre_splits_and_cannot_be_altered() {
    let conn = Arc::new(Connection::in_memory());
    let client = LayoutClient::new(Arc::clone(&conn) as Arc<dyn Client>);
    create(&client, "s", Some("SALT BUCKETS=16"));
    assert_eq!(client.regions(&name("s")).expect("regions").len(), 16);
    create(&client, "h", Some("HASH_PREFIX BYTES=4"));
    assert_eq!(client.regions(&name("h")).expect("regions").len(), 16);
    let mut d = client.describe_table(&name("s")).expect("describe");
    assert_eq!(
        d.metadata.get(METADATA_KEY).map(String::as_str),
        Some("SALT BUCKETS=16")
    );
    d.metadata
        .insert(METADATA_KEY.into(), "SALT BUCKETS=4".into());
    let e = client.modify_table(d).expect_err("the layout is fixed");
    assert!(e.to_string().contains(METADATA_KEY), "{e}");
    let mut bad = TableDescriptor::named("x")
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("f"));
    bad.metadata
        .insert(METADATA_KEY.into(), "SALT BUCKETS=999".into());
    let e = client.create_table(bad, &[]).expect_err("bad layout");
    assert!(e.to_string().contains("BUCKETS"), "{e}");
    // A time-bucketed table names what its keys lack.
    create(&client, "tb", Some("TIME_BUCKETS BUCKETS=4"));
    let e = client
        .put(&name("tb"), &Put::new("short").add_column("f", "q", "v"))
        .expect_err("no timestamp");
    assert!(e.to_string().contains("8-byte"), "{e}");
}

/// Sequential keys into a pre-split plain table all land in its last region, and the report
/// says so and names the layouts; the same keys into a salted table spread over its buckets.
#[test]
fn the_hotspot_report_finds_increasing_keys_that_salting_spreads() {
    use basalt_common::keys;
    use basalt_embedded::hotspots::HotspotReport;
    let conn = Arc::new(Connection::in_memory());
    let client = LayoutClient::new(Arc::clone(&conn) as Arc<dyn Client>);
    let splits: Vec<Bytes> = [250, 500, 750]
        .iter()
        .map(|n| Bytes::from(keys::long(*n).to_vec()))
        .collect();
    client
        .create_table(
            TableDescriptor::named("seq")
                .expect("name")
                .with_family(ColumnFamilyDescriptor::new("f")),
            &splits,
        )
        .expect("create");
    create(&client, "salted", Some("SALT BUCKETS=4"));
    for table in ["seq", "salted"] {
        for i in 0..2000 {
            client
                .put(
                    &name(table),
                    &Put::new(keys::long(1000 + i).to_vec()).add_column("f", "q", "v"),
                )
                .expect("put");
        }
    }
    let hot =
        HotspotReport::take(&client, &name("seq"), std::time::Duration::ZERO).expect("report");
    let (busiest, share, skew) = hot.skew(|r| r.writes).expect("writes");
    assert_eq!((busiest, share), (3, 1.0), "{hot}");
    assert!((skew - 4.0).abs() < 1e-9, "{hot}");
    let text = hot.to_string();
    assert!(
        text.contains("Hot spot") && text.contains("the last one"),
        "{text}"
    );
    assert!(text.contains("SALT => {BUCKETS => N}"), "{text}");

    let spread =
        HotspotReport::take(&client, &name("salted"), std::time::Duration::ZERO).expect("report");
    let (_, share, _) = spread.skew(|r| r.writes).expect("writes");
    assert!(share < 0.4, "{spread}");
    assert!(spread.to_string().contains("Writes are spread"), "{spread}");
    assert!(
        spread.to_string().contains("key layout SALT BUCKETS=4"),
        "{spread}"
    );
}
