//! WebAssembly coprocessors (issue 50): observers that veto puts of a bad value, add a
//! column to every put and count scanned rows (its endpoint reports the count), attached with
//! HBase's `coprocessor$N` attribute; embedded, and on a cluster of two region server
//! processes where they follow a region that moves. Modules that loop, hoard memory or trap
//! are stopped, their callers told, and the server serves on.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_coprocessor::testing::example;
use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Connection, DataClient, EndpointCall, Error, Get, Put,
    Scan, TableDescriptor, TableName,
};
use support::cluster::Cluster;

/// `name` with family `f`, its modules attached as `coprocessor$N` (module, priority, args).
fn descriptor(name: &str, modules: &[(&str, u32, &str)]) -> TableDescriptor {
    let mut desc = TableDescriptor::named(name)
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    for (i, (module, priority, args)) in modules.iter().enumerate() {
        let value = format!("file://{}|{priority}|{args}", example(module).display());
        desc.set_attribute(&format!("coprocessor${}", i + 1), &value)
            .unwrap();
    }
    desc
}

fn observed() -> TableDescriptor {
    descriptor(
        "observed",
        &[
            ("no_bad_values", 10, "refuse=bad"),
            ("add_column", 20, "column=f:added,value=yes"),
            ("scan_counter", 30, ""),
        ],
    )
}

fn put(row: &str, value: &str) -> Put {
    Put::new(row.to_owned()).add_column("f", "q", value.to_owned())
}

/// The rows each region's scan counter has counted, by region name.
fn counted(client: &dyn Client, table: &TableName) -> BTreeMap<Bytes, i64> {
    client
        .coprocessor_service(
            table,
            &EndpointCall {
                range: (b"", b""),
                service: "RowCounter",
                method: "scanned",
                request: &[],
            },
        )
        .unwrap()
        .into_iter()
        .map(|(region, answer)| {
            let bytes: [u8; 8] = answer.as_slice().try_into().unwrap();
            (region, i64::from_be_bytes(bytes))
        })
        .collect()
}

fn scanned_rows(client: &Arc<dyn Client>, table: &TableName) -> usize {
    Arc::clone(client)
        .scan(table, &Scan::new())
        .unwrap()
        .collect::<basalt_embedded::Result<Vec<_>>>()
        .unwrap()
        .len()
}

fn refused(outcome: basalt_embedded::Result<()>) {
    match outcome {
        Err(Error::Coprocessor(m)) => {
            assert!(m.contains("value bad is refused by no-bad-values"), "{m}");
        }
        other => panic!("the bad put was not vetoed: {other:?}"),
    }
}

/// The observers at work on `table`: a veto, an added column, the scanned rows counted.
fn observers_act(client: &Arc<dyn Client>, table: &TableName) {
    for row in ["a1", "a2", "n1", "n2"] {
        client.put(table, &put(row, "good")).unwrap();
    }
    refused(client.put(table, &put("a3", "bad")));
    refused(client.put(table, &put("n3", "bad")));
    let row = client.get(table, &Get::new("n1")).unwrap();
    let columns: Vec<(Bytes, Bytes)> = row
        .cells
        .iter()
        .map(|c| {
            (
                Bytes::copy_from_slice(c.qualifier()),
                Bytes::copy_from_slice(c.value()),
            )
        })
        .collect();
    assert_eq!(
        columns,
        [
            (Bytes::from("added"), Bytes::from("yes")),
            (Bytes::from("q"), Bytes::from("good"))
        ]
    );
    assert!(client.get(table, &Get::new("a3")).unwrap().cells.is_empty());
    assert_eq!(scanned_rows(client, table), 4);
    let counts = counted(client.as_ref(), table);
    assert_eq!(
        counts.values().copied().collect::<Vec<_>>(),
        [2, 2],
        "{counts:?}"
    );
}

#[test]
fn observers_and_an_endpoint_embedded() {
    let conn: Arc<dyn Client> = Arc::new(Connection::in_memory());
    conn.create_table(observed(), &[Bytes::from("m")]).unwrap();
    observers_act(&conn, &TableName::parse("observed").unwrap());
}

/// The AssemblyScript example (a module written without the SDK, in another language) vetoes
/// like the Rust one.
#[test]
fn a_module_in_assemblyscript_vetoes_puts() {
    let conn: Arc<dyn Client> = Arc::new(Connection::in_memory());
    let module = basalt_coprocessor::testing::assemblyscript_example();
    let mut desc = descriptor("as", &[]);
    desc.set_attribute(
        "coprocessor",
        &format!("file://{}|1|refuse=nope", module.display()),
    )
    .unwrap();
    conn.create_table(desc, &[Bytes::from("m")]).unwrap();
    let table = TableName::parse("as").unwrap();
    for row in ["a", "z"] {
        match conn.put(&table, &put(row, "nope")) {
            Err(Error::Coprocessor(m)) => {
                assert!(
                    m.contains("value nope is refused (an AssemblyScript coprocessor)"),
                    "{m}"
                );
            }
            other => panic!("the AssemblyScript module did not veto: {other:?}"),
        }
        conn.put(&table, &put(row, "fine")).unwrap();
    }
    assert_eq!(scanned_rows(&conn, &table), 2);
}

#[test]
fn a_module_that_is_not_webassembly_is_refused_when_attached() {
    let conn = Connection::in_memory();
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.wasm");
    std::fs::write(&bogus, b"#!/bin/sh").unwrap();
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    desc.set_attribute("coprocessor$1", &format!("file://{}|1|", bogus.display()))
        .unwrap();
    let err = conn.create_table(desc, &[]).unwrap_err().to_string();
    assert!(err.contains("not a WebAssembly binary"), "{err}");
}

/// Waits (bounded) until the region holding `row` of `table` is on `server`.
fn wait_on(client: &dyn Client, table: &TableName, row: &str, server: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = client.cluster_summary().unwrap();
        let there = summary
            .servers
            .iter()
            .any(|s| s.name == server && s.regions.iter().any(|r| holds(&r.name, table, row)));
        if there {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the region never reached {server}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Whether the region named `name` is `table`'s region holding `row` (start key <= row, with
/// this test's one split at "m").
fn holds(name: &[u8], table: &TableName, row: &str) -> bool {
    let prefix = format!("{table},");
    let Some(rest) = name.strip_prefix(prefix.as_bytes()) else {
        return false;
    };
    let upper = rest.starts_with(b"m,");
    upper == (row >= "m")
}

#[test]
fn observers_on_a_cluster_follow_a_moving_region() {
    let cluster = Cluster::start(2, 1);
    let conn: Arc<dyn Client> = cluster.connect();
    let table = TableName::parse("observed").unwrap();
    conn.create_table(observed(), &[Bytes::from("m")]).unwrap();
    observers_act(&conn, &table);

    // Move the upper region to the server that does not hold it.
    let summary = conn.cluster_summary().unwrap();
    let (holder, region) = summary
        .servers
        .iter()
        .find_map(|s| {
            s.regions
                .iter()
                .find(|r| holds(&r.name, &table, "n"))
                .map(|r| (s.name.clone(), r.name.clone()))
        })
        .unwrap();
    let other = summary
        .servers
        .iter()
        .map(|s| s.name.clone())
        .find(|s| *s != holder)
        .unwrap();
    conn.move_region(&region, Some(&other)).unwrap();
    wait_on(conn.as_ref(), &table, "n", &other);

    // Loaded again where it opened: the veto and the added column hold there too.
    refused(conn.put(&table, &put("n4", "bad")));
    conn.put(&table, &put("n4", "good")).unwrap();
    let added = conn
        .get(&table, &Get::new("n4").add_column("f", "added"))
        .unwrap();
    assert_eq!(added.cells.len(), 1);
    // The moved region's counter started again at 0 (counters live with the loaded module);
    // the other region's goes on.
    assert_eq!(scanned_rows(&conn, &table), 5);
    let counts: Vec<i64> = counted(conn.as_ref(), &table).into_values().collect();
    assert_eq!(
        counts,
        [4, 3],
        "lower region 2+2 rows, the moved one 3 since it moved"
    );
}

#[test]
fn runaway_modules_on_a_cluster_fail_their_callers_and_the_server_serves_on() {
    let cluster = Cluster::start(1, 1);
    let conn = cluster.connect();
    let plain = TableName::parse("plain").unwrap();
    conn.create_table(descriptor("plain", &[]), &[]).unwrap();
    for (mode, says) in [
        ("loop", "ran out of fuel"),
        ("alloc", "outgrew its memory"),
        ("trap", "trapped"),
    ] {
        let name = format!("runaway_{mode}");
        let table = TableName::parse(&name).unwrap();
        let args = format!("mode={mode},fuel=20000000,memory=8388608");
        conn.create_table(descriptor(&name, &[("runaway", 1, &args)]), &[])
            .unwrap();
        match conn.get(&table, &Get::new("r")) {
            Err(Error::Coprocessor(m)) => {
                assert!(m.contains(says) && m.contains("runaway.wasm"), "{m}");
                assert!(m.contains("unloaded from region"), "{m}");
            }
            other => panic!("{mode}: expected the module's failure, got {other:?}"),
        }
        // Unloaded from its region: the table serves on without it, as do the others.
        conn.put(&table, &put("r", "v")).unwrap();
        assert_eq!(conn.get(&table, &Get::new("r")).unwrap().cells.len(), 1);
        conn.put(&plain, &put(mode, "v")).unwrap();
    }
    let rows = Arc::clone(&conn)
        .scan(&plain, &Scan::new())
        .unwrap()
        .count();
    assert_eq!(rows, 3);
}
