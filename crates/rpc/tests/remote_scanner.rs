//! The remote scanner: rows fetched as they are read (one server scanner open at a time,
//! closed when the scan ends or is dropped), and a scan that outlives its server scanner's
//! lease picking up just after the last row it received.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, DataClient, Put, Scan, TableDescriptor, TableName,
};
use basalt_rpc::RpcServer;

mod support;

const ROWS: usize = 300;

/// An engine with table `t` split at `r100` and `r200`, rows `r000`..`r299`.
fn engine() -> Connection {
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(
            desc,
            &[Bytes::from_static(b"r100"), Bytes::from_static(b"r200")],
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

fn connect(server: &RpcServer) -> Arc<RemoteConnection> {
    Arc::new(RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap())
}

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn row(i: usize) -> Bytes {
    Bytes::from(format!("r{i:03}"))
}

#[test]
fn rows_arrive_as_they_are_read_and_the_server_scanner_closes_with_the_scan() {
    let conn = engine();
    let server = support::serve(&conn);
    let remote = connect(&server);
    let scan = Scan::new().with_caching(10);
    let mut scanner = Arc::clone(&remote).scan(&t(), &scan).unwrap();
    for i in 0..150 {
        assert_eq!(scanner.next().unwrap().unwrap().row, row(i));
        // One server scanner at a time, even while crossing regions.
        assert_eq!(server.open_scanners(), 1, "after row {i}");
    }
    // Rows written ahead of the scan show up when it gets there: nothing past the first
    // calls was read ahead.
    conn.table("t")
        .unwrap()
        .put(&Put::new("r250x").add_column("f", "q", "late"))
        .unwrap();
    let rest: Vec<Bytes> = scanner.by_ref().map(|r| r.unwrap().row).collect();
    assert_eq!(rest.len(), ROWS - 150 + 1);
    assert!(rest.contains(&Bytes::from_static(b"r250x")));
    assert_eq!(
        server.open_scanners(),
        0,
        "the finished scan closed its scanner"
    );

    // Dropped half-way: the server scanner is closed, not left to its lease.
    let mut scanner = Arc::clone(&remote).scan(&t(), &scan).unwrap();
    for _ in 0..15 {
        scanner.next().unwrap().unwrap();
    }
    assert_eq!(server.open_scanners(), 1);
    drop(scanner);
    assert_eq!(server.open_scanners(), 0);
    server.shutdown();
}

#[test]
fn limits_and_reversed_scans_stream_across_regions() {
    let conn = engine();
    let server = support::serve(&conn);
    let remote = connect(&server);
    let limited: Vec<Bytes> = Arc::clone(&remote)
        .scan(
            &t(),
            &Scan::new()
                .with_start_row(row(95))
                .with_caching(4)
                .with_limit(13),
        )
        .unwrap()
        .map(|r| r.unwrap().row)
        .collect();
    assert_eq!(limited, (95..108).map(row).collect::<Vec<_>>());
    assert_eq!(server.open_scanners(), 0);

    let reversed: Vec<Bytes> = Arc::clone(&remote)
        .scan(
            &t(),
            &Scan::new()
                .with_start_row(row(205))
                .with_stop_row(row(95))
                .reversed(true)
                .with_caching(7),
        )
        .unwrap()
        .map(|r| r.unwrap().row)
        .collect();
    assert_eq!(reversed, (96..=205).rev().map(row).collect::<Vec<_>>());
    assert_eq!(server.open_scanners(), 0);
    server.shutdown();
}

#[test]
fn a_scan_that_outlives_its_lease_resumes_after_the_last_row() {
    let conn = engine();
    let server = conn
        .serve_rpc(basalt_rpc::RpcConfig {
            scanner_lease: Duration::from_millis(200),
            ..support::loopback()
        })
        .unwrap();
    let remote = connect(&server);
    for reversed in [false, true] {
        let scan = Scan::new().with_caching(5).reversed(reversed);
        let mut scanner = Arc::clone(&remote).scan(&t(), &scan).unwrap();
        let mut seen = Vec::new();
        for _ in 0..12 {
            seen.push(scanner.next().unwrap().unwrap().row);
        }
        // Wait (bounded) until the server has expired the idle scanner.
        let deadline = Instant::now() + Duration::from_secs(10);
        while server.open_scanners() > 0 {
            assert!(Instant::now() < deadline, "the lease never ran out");
            std::thread::sleep(Duration::from_millis(50));
        }
        seen.extend(scanner.map(|r| r.unwrap().row));
        let mut expected: Vec<Bytes> = (0..ROWS).map(row).collect();
        if reversed {
            expected.reverse();
        }
        assert_eq!(
            seen, expected,
            "reversed {reversed}: no row lost or repeated"
        );
    }
    server.shutdown();
}

#[test]
fn a_refused_scan_fails_when_opened() {
    let conn = engine();
    let server = support::serve(&conn);
    let remote = connect(&server);
    let long = vec![b'k'; usize::from(i16::MAX as u16) + 1];
    let e = Arc::clone(&remote)
        .scan(&t(), &Scan::new().with_start_row(Bytes::from(long)))
        .unwrap_err();
    assert!(e.to_string().contains("length"), "{e}");
    let e = Arc::clone(&remote)
        .scan(&TableName::parse("missing").unwrap(), &Scan::new())
        .unwrap_err();
    assert_eq!(e.kind(), basalt_embedded::ErrorKind::NotFound, "{e}");
    server.shutdown();
}

/// The same through the async client: a scan is a stream of rows fetched as they are read,
/// one server scanner open at a time, closed at the end or (from a task) when dropped; limits
/// and reversed scans cross regions; a scan that outlives its lease resumes after its last
/// row; a refused scan fails when opened.
#[test]
fn the_async_scanner_streams_resumes_and_closes() {
    use basalt_embedded::remote::AsyncConnection;

    let conn = engine();
    let server = support::serve(&conn);
    // A server whose scanners' leases run out soon, for the resumption.
    let leasing = conn
        .serve_rpc(basalt_rpc::RpcConfig {
            scanner_lease: Duration::from_millis(200),
            ..support::loopback()
        })
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let remote = AsyncConnection::connect(server.local_addr(), RemoteConfig::default())
            .await
            .unwrap();
        let table = remote.table("t").unwrap();
        let mut scanner = table.scanner(&Scan::new().with_caching(10)).await.unwrap();
        for i in 0..150 {
            assert_eq!(scanner.next_row().await.unwrap().unwrap().row, row(i));
            assert_eq!(server.open_scanners(), 1, "after row {i}");
        }
        let mut rest = 0;
        while let Some(r) = scanner.next_row().await {
            r.unwrap();
            rest += 1;
        }
        assert_eq!(rest, ROWS - 150);
        assert_eq!(
            server.open_scanners(),
            0,
            "the finished scan closed its scanner"
        );

        // Dropped half-way: a task closes the server scanner.
        let mut scanner = table.scanner(&Scan::new().with_caching(10)).await.unwrap();
        for _ in 0..15 {
            scanner.next_row().await.unwrap().unwrap();
        }
        assert_eq!(server.open_scanners(), 1);
        drop(scanner);
        let deadline = Instant::now() + Duration::from_secs(5);
        while server.open_scanners() > 0 {
            assert!(
                Instant::now() < deadline,
                "the dropped scan's scanner stayed open"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }

        let limited: Vec<Bytes> = table
            .scan(
                &Scan::new()
                    .with_start_row(row(95))
                    .with_caching(4)
                    .with_limit(13),
            )
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.row)
            .collect();
        assert_eq!(limited, (95..108).map(row).collect::<Vec<_>>());
        let reversed: Vec<Bytes> = table
            .scan(
                &Scan::new()
                    .with_start_row(row(205))
                    .with_stop_row(row(95))
                    .reversed(true)
                    .with_caching(7),
            )
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.row)
            .collect();
        assert_eq!(reversed, (96..=205).rev().map(row).collect::<Vec<_>>());

        // Past its lease: resumed just after the last row received.
        let short = AsyncConnection::connect(leasing.local_addr(), RemoteConfig::default())
            .await
            .unwrap()
            .table("t")
            .unwrap();
        for reversed in [false, true] {
            let scan = Scan::new().with_caching(5).reversed(reversed);
            let mut scanner = short.scanner(&scan).await.unwrap();
            let mut seen = Vec::new();
            for _ in 0..12 {
                seen.push(scanner.next_row().await.unwrap().unwrap().row);
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while leasing.open_scanners() > 0 {
                assert!(Instant::now() < deadline, "the lease never ran out");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            while let Some(r) = scanner.next_row().await {
                seen.push(r.unwrap().row);
            }
            let mut expected: Vec<Bytes> = (0..ROWS).map(row).collect();
            if reversed {
                expected.reverse();
            }
            assert_eq!(
                seen, expected,
                "reversed {reversed}: no row lost or repeated"
            );
        }

        let long = vec![b'k'; usize::from(i16::MAX as u16) + 1];
        let e = table
            .scanner(&Scan::new().with_start_row(Bytes::from(long)))
            .await
            .unwrap_err();
        assert!(e.to_string().contains("length"), "{e}");
        let e = remote
            .table("missing")
            .unwrap()
            .scanner(&Scan::new())
            .await
            .unwrap_err();
        assert_eq!(e.kind(), basalt_embedded::ErrorKind::NotFound, "{e}");
    });
    server.shutdown();
    leasing.shutdown();
}
