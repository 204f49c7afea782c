//! The secondary index built on coprocessors (issue 50): an observer keeps an index table of
//! one column on every write, and `basalt_coprocessor::secondary_index` reads through it. Embedded,
//! it follows puts, overwrites and every kind of delete; on a cluster of three region server
//! processes, under a write load with a kill -9 of a region server, the index table ends equal
//! to what a scan of the base table says it must hold (the killed server's edits replayed
//! into it), and every lookup equals the base table's rows.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use basalt_coprocessor::secondary_index::SecondaryIndex;
use basalt_coprocessor::testing::example;
use basalt_coprocessor_sdk::index;
use basalt_embedded::{
    Append, Bytes, Client, ColumnFamilyDescriptor, Connection, Delete, Error, Put, Scan,
    TableDescriptor, TableName,
};
use support::cluster::Cluster;

const CITIES: [&str; 5] = ["Oslo", "Lima", "Pune", "Kyiv", "Oslo\0x"];

fn tables(client: &dyn Client, base_splits: &[&str], index_splits: &[&str]) -> SecondaryIndex {
    let splits = |keys: &[&str]| {
        keys.iter()
            .map(|k| Bytes::from(k.to_string()))
            .collect::<Vec<_>>()
    };
    client
        .create_table(
            TableDescriptor::named("people_idx")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("i")),
            &splits(index_splits),
        )
        .unwrap();
    let mut base = TableDescriptor::named("people")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    base.set_attribute(
        "coprocessor$1",
        &format!(
            "file://{}|100|column=f:city,index=people_idx,write=people_idx",
            example("secondary_index").display()
        ),
    )
    .unwrap();
    client.create_table(base, &splits(base_splits)).unwrap();
    SecondaryIndex {
        table: TableName::parse("people").unwrap(),
        index: TableName::parse("people_idx").unwrap(),
        family: Bytes::from("f"),
        qualifier: Bytes::from("city"),
    }
}

/// Each base row's city, from a scan of the base table.
fn base_cities(client: &Arc<dyn Client>, idx: &SecondaryIndex) -> BTreeMap<Bytes, Bytes> {
    Arc::clone(client)
        .scan(&idx.table, &Scan::new().add_column("f", "city"))
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.row.clone(), Bytes::copy_from_slice(r.cells[0].value()))
        })
        .collect()
}

/// The index rows the base table says there must be, and the ones there are.
fn index_rows(
    client: &Arc<dyn Client>,
    idx: &SecondaryIndex,
) -> (BTreeSet<Bytes>, BTreeSet<Bytes>) {
    let wanted = base_cities(client, idx)
        .iter()
        .map(|(row, city)| Bytes::from(index::key(city, row)))
        .collect();
    let there = Arc::clone(client)
        .scan(&idx.index, &Scan::new())
        .unwrap()
        .map(|r| r.unwrap().row)
        .collect();
    (wanted, there)
}

/// Every lookup through the index equals the base table's rows of that city.
fn lookups_match(client: &Arc<dyn Client>, idx: &SecondaryIndex) {
    let base = base_cities(client, idx);
    for city in CITIES {
        let through: Vec<Bytes> = idx
            .lookup(client, city.as_bytes())
            .unwrap()
            .into_iter()
            .map(|r| r.row)
            .collect();
        let scanned: Vec<Bytes> = base
            .iter()
            .filter(|(_, c)| c[..] == *city.as_bytes())
            .map(|(row, _)| row.clone())
            .collect();
        assert_eq!(through, scanned, "lookup of {city:?}");
    }
}

fn city(row: &str, city: &str) -> Put {
    Put::new(row.to_owned())
        .add_column("f", "city", city.to_owned())
        .add_column("f", "name", format!("person {row}"))
}

#[test]
fn the_index_follows_puts_overwrites_and_deletes() {
    let conn: Arc<dyn Client> = Arc::new(Connection::in_memory());
    let idx = tables(conn.as_ref(), &["r5"], &["L"]);
    for (i, c) in CITIES.iter().cycle().take(10).enumerate() {
        conn.put(&idx.table, &city(&format!("r{i}"), c)).unwrap();
    }
    // Overwrites move a row's index row; a write of another column leaves it.
    conn.put(&idx.table, &city("r1", "Pune")).unwrap();
    conn.put(&idx.table, &city("r1", "Kyiv")).unwrap();
    conn.put(
        &idx.table,
        &Put::new("r2").add_column("f", "name", "renamed"),
    )
    .unwrap();
    // An append to the column moves its index row too.
    conn.append(
        &idx.table,
        &Append::new("r9").add_column("f", "city", Bytes::from("-on-sea")),
    )
    .unwrap();
    let appended = idx.lookup(&conn, b"Oslo\0x-on-sea").unwrap();
    assert_eq!(appended.len(), 1);
    assert_eq!(appended[0].row, "r9");
    // Each kind of delete that covers the column unindexes it.
    conn.delete(&idx.table, &Delete::new("r3")).unwrap();
    conn.delete(&idx.table, &Delete::new("r4").add_family("f"))
        .unwrap();
    conn.delete(&idx.table, &Delete::new("r6").add_columns("f", "city"))
        .unwrap();
    conn.delete(&idx.table, &Delete::new("r7").add_columns("f", "name"))
        .unwrap();
    // One version of the indexed column cannot be deleted: the one below would come back.
    match conn.delete(&idx.table, &Delete::new("r8").add_column("f", "city")) {
        Err(Error::Coprocessor(m)) => assert!(m.contains("delete the column"), "{m}"),
        other => panic!("a one-version delete was not refused: {other:?}"),
    }
    let (wanted, there) = index_rows(&conn, &idx);
    assert_eq!(wanted.len(), 7);
    assert_eq!(there, wanted);
    lookups_match(&conn, &idx);
}

/// A tiny deterministic generator (no dependency for it).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// One writer's bounded load: puts of cities, column deletes and row deletes on 40 rows, each
/// operation retried (a bounded number of times) until it succeeds, as an application would
/// across a server's crash.
fn write_load(
    client: &Arc<dyn Client>,
    table: &TableName,
    seed: u64,
    ops: usize,
    done: &AtomicUsize,
) {
    let mut rng = Lcg(seed);
    for _ in 0..ops {
        let row = format!("r{:02}", rng.below(40));
        let pick = rng.below(10);
        let c = CITIES[rng.below(CITIES.len() as u64) as usize];
        let mut attempts = 0;
        loop {
            let outcome = match pick {
                0 => client.delete(table, &Delete::new(row.clone())),
                1 => client.delete(table, &Delete::new(row.clone()).add_columns("f", "city")),
                _ => client.put(table, &city(&row, c)),
            };
            attempts += 1;
            match outcome {
                Ok(()) => break,
                Err(e) if attempts < 8 => {
                    eprintln!("{row}: retrying after {e}");
                    std::thread::sleep(Duration::from_millis(500));
                }
                Err(e) => panic!("{row}: still failing after {attempts} attempts: {e}"),
            }
        }
        done.fetch_add(1, Ordering::Relaxed);
    }
}

/// The region server (address) holding the most regions of the two tables.
fn busiest(client: &dyn Client, cluster: &Cluster) -> String {
    let summary = client.cluster_summary().unwrap();
    let server = summary
        .servers
        .iter()
        .max_by_key(|s| {
            s.regions
                .iter()
                .filter(|r| r.name.starts_with(b"people"))
                .count()
        })
        .unwrap();
    let port = server.name.split(',').nth(1).unwrap();
    cluster
        .servers
        .keys()
        .find(|addr| addr.ends_with(&format!(":{port}")))
        .unwrap()
        .clone()
}

#[test]
fn the_index_stays_equal_to_the_base_table_through_a_kill_9() {
    let cluster = Cluster::start(3, 1);
    let conn = cluster.connect();
    let client: Arc<dyn Client> = conn.clone();
    let idx = tables(client.as_ref(), &["r13", "r26"], &["Lima", "Oslo"]);
    let done = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..2u64)
        .map(|w| {
            let (client, table, done) = (Arc::clone(&client), idx.table.clone(), Arc::clone(&done));
            std::thread::spawn(move || write_load(&client, &table, 7 + w, 150, &done))
        })
        .collect();
    // Kill the busiest server once the load is well under way.
    let deadline = Instant::now() + Duration::from_secs(120);
    while done.load(Ordering::Relaxed) < 60 {
        assert!(Instant::now() < deadline, "the load did not get going");
        std::thread::sleep(Duration::from_millis(20));
    }
    let victim = busiest(client.as_ref(), &cluster);
    Cluster::kill(cluster.servers[&victim]);
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(done.load(Ordering::Relaxed), 300);
    // The killed server's regions replay its edits where they reopen; the index writes that
    // replay asks for are made once they are open. Bounded wait for them to land.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (wanted, there) = index_rows(&client, &idx);
        if wanted == there {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the index never matched the base table: missing {:?}, stale {:?}",
            wanted.difference(&there).collect::<Vec<_>>(),
            there.difference(&wanted).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    lookups_match(&client, &idx);
}
