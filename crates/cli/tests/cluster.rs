//! A real cluster on this machine (`basalt cluster start`: Debian's ZooKeeper, two masters,
//! four region servers as processes): a pre-split table spreads over the servers, and under a
//! steady write load from the Rust client, kill -9 of a region server, then of the one holding
//! `hbase:meta`, then of the active master, loses no acknowledged write and tears no row; the
//! regions come back on the survivors and the backup master takes over. Every wait is bounded,
//! and the whole process group is killed when the test ends.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use basalt_embedded::remote::{AsyncConnection, RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, DataClient, Get, Put, Scan, ServerAdmin, TableDescriptor,
    TableName,
};
use support::cluster::{Cluster, word_after};

/// `host,port,startcode` -> `host:port`.
fn addr_of(server: &str) -> String {
    basalt_embedded::ServerName::parse(server)
        .unwrap()
        .host_port
}

/// Writes rows `<letter><round><n>` = `n` over every region until `stop`, at most `limit`
/// of them; returns the acknowledged ones.
fn write_load(
    conn: Arc<RemoteConnection>,
    round: usize,
    stop: Arc<AtomicBool>,
    limit: usize,
) -> std::thread::JoinHandle<Vec<String>> {
    std::thread::spawn(move || {
        let table = TableName::parse("t").unwrap();
        let mut acked = Vec::new();
        for n in 0..limit {
            if stop.load(Ordering::Acquire) {
                break;
            }
            let letter = char::from(b'a' + u8::try_from(n % 16).unwrap());
            let row = format!("{letter}{round}-{n:06}");
            let put = Put::new(row.clone())
                .add_column("f", "a", n.to_string())
                .add_column("f", "b", n.to_string());
            if conn.put(&table, &put).is_ok() {
                acked.push(row);
            }
        }
        acked
    })
}

/// One column's value in a row, if it has it.
type Column = Option<Vec<u8>>;

/// Every acknowledged row is there, whole (both columns, the same value).
fn check_rows(conn: &RemoteConnection, acked: &[String]) {
    let table = TableName::parse("t").unwrap();
    let rows: BTreeMap<Bytes, (Column, Column)> = conn
        .table("t")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .into_iter()
        .map(|r| {
            let a = r.value(b"f", b"a").map(<[u8]>::to_vec);
            let b = r.value(b"f", b"b").map(<[u8]>::to_vec);
            (r.row.clone(), (a, b))
        })
        .collect();
    for row in acked {
        let (a, b) = rows
            .get(row.as_bytes())
            .unwrap_or_else(|| panic!("acknowledged row {row} is missing"));
        assert!(a.is_some() && a == b, "row {row} is torn: {a:?} {b:?}");
    }
    // A get goes to the region's server directly.
    if let Some(row) = acked.last() {
        let got = conn.get(&table, &Get::new(row.clone())).unwrap();
        assert!(got.value(b"f", b"a").is_some());
    }
}

/// The servers holding each of t's regions and meta, from the cluster status.
fn placement(conn: &RemoteConnection) -> (BTreeSet<String>, String) {
    let summary = conn.cluster_summary().unwrap();
    let mut holders = BTreeSet::new();
    let mut meta = String::new();
    for s in &summary.servers {
        for r in &s.regions {
            if r.name.starts_with(b"t,") {
                holders.insert(s.name.clone());
            }
            if r.name.starts_with(b"hbase:meta") {
                meta = s.name.clone();
            }
        }
    }
    (holders, meta)
}

/// Waits (bounded) until every region of t is on a live server and the cluster status
/// lists `servers` live servers; returns how long it took.
fn wait_for_recovery(conn: &RemoteConnection, servers: usize) -> Duration {
    let started = Instant::now();
    let deadline = started + Duration::from_secs(60);
    loop {
        let summary = conn.cluster_summary();
        if let Ok(s) = &summary
            && s.live_servers == servers
            && s.servers.iter().map(|s| s.regions.len()).sum::<usize>() == 10
        {
            return started.elapsed();
        }
        assert!(
            Instant::now() < deadline,
            "the cluster did not recover within 60 s: {summary:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_cluster_survives_losing_region_servers_meta_and_its_master() {
    let cluster = Cluster::start(4, 2);
    assert_eq!(cluster.servers.len(), 4, "{:?}", cluster.lines());
    assert_eq!(cluster.masters.len(), 2, "{:?}", cluster.lines());
    let conn = cluster.connect();
    create_t(
        &conn,
        ["b", "d", "f", "h", "j", "l", "n", "p"].map(str::to_owned),
    );
    // Nine regions over four servers.
    let (holders, meta) = placement(&conn);
    assert_eq!(holders.len(), 4, "{holders:?}");
    assert!(!meta.is_empty());
    // The active master lists the other as its backup (within a few of its looks).
    let deadline = Instant::now() + Duration::from_secs(10);
    while conn.cluster_summary().unwrap().backup_masters != 1 {
        assert!(Instant::now() < deadline, "no backup master listed");
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut live = 4;
    let mut acked = Vec::new();
    for round in 0..3 {
        let stop = Arc::new(AtomicBool::new(false));
        let writer = write_load(Arc::clone(&conn), round, Arc::clone(&stop), 50_000);
        std::thread::sleep(Duration::from_millis(800));
        let (_, meta) = placement(&conn);
        let victim = match round {
            // A region server without meta.
            0 => cluster
                .servers
                .iter()
                .find(|(addr, _)| **addr != addr_of(&meta))
                .map(|(a, p)| (a.clone(), *p))
                .unwrap(),
            // The one holding meta.
            1 => {
                let addr = addr_of(&meta);
                (addr.clone(), cluster.servers[&addr])
            }
            // The active master.
            _ => {
                let master = addr_of(&conn.cluster_summary().unwrap().master);
                (master.clone(), cluster.masters[&master])
            }
        };
        Cluster::kill(victim.1);
        let killed = Instant::now();
        if round < 2 {
            live -= 1;
            let took = wait_for_recovery(&conn, live);
            // The killed server is listed dead.
            assert_eq!(conn.cluster_summary().unwrap().dead_servers(), round + 1);
            println!("round {round}: killed {} ({took:?} to recover)", victim.0);
        } else {
            // The backup master is active once it answers a table change.
            let deadline = killed + Duration::from_secs(60);
            loop {
                let made = conn.create_table(
                    TableDescriptor::named("after_failover")
                        .unwrap()
                        .with_family(ColumnFamilyDescriptor::new("f")),
                    &[],
                );
                if made.is_ok() {
                    break;
                }
                assert!(Instant::now() < deadline, "no master took over: {made:?}");
                std::thread::sleep(Duration::from_millis(200));
            }
            println!(
                "round {round}: killed master {} ({:?} to take over)",
                victim.0,
                killed.elapsed()
            );
        }
        // Writes go on after the recovery.
        std::thread::sleep(Duration::from_millis(500));
        stop.store(true, Ordering::Release);
        let round_acked = writer.join().unwrap();
        assert!(
            round_acked.len() > 10,
            "round {round}: only {} writes",
            round_acked.len()
        );
        acked.extend(round_acked);
        check_rows(&conn, &acked);
        let (holders, _) = placement(&conn);
        assert!(
            !holders.iter().any(|h| addr_of(h) == victim.0),
            "round {round}: regions still on the killed server {}",
            victim.0
        );
    }
    // After the failover: two live servers, and no backup master left (the one killed was
    // the active one).
    let summary = conn.cluster_summary().unwrap();
    assert_eq!(summary.live_servers, 2, "{summary:?}");
    assert_eq!(summary.backup_masters, 0, "{summary:?}");
    println!("{} acknowledged writes, all readable", acked.len());
}

/// The async client through ZooKeeper: a scan open on a region whose server is killed goes on
/// after the region reopens elsewhere, each row once and in order, while tasks write through
/// the same connection, many calls in flight; every write acknowledged is there afterwards.
#[test]
fn the_async_client_rides_out_a_failover_with_a_scan_open() {
    let cluster = Cluster::start(3, 1);
    let conn = cluster.connect();
    create_t(
        &conn,
        ["b", "d", "f", "h", "j", "l", "n", "p"].map(str::to_owned),
    );
    conn.create_table(
        TableDescriptor::named("u")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &[],
    )
    .unwrap();
    let rows: Vec<String> = (0..16u8)
        .flat_map(|l| (0..25).map(move |n| format!("{}{n:03}", char::from(b'a' + l))))
        .collect();
    let table = TableName::parse("t").unwrap();
    for row in &rows {
        conn.put(
            &table,
            &Put::new(row.clone()).add_column("f", "q", row.clone()),
        )
        .unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let config = RemoteConfig {
        operation_timeout: Duration::from_secs(90),
        rpc_timeout: Duration::from_secs(20),
        ..RemoteConfig::default()
    };
    let (seen, acked, victim) = runtime.block_on(async {
        let conn = AsyncConnection::through_zookeeper(&cluster.quorum, config)
            .await
            .unwrap();
        let t = conn.table("t").unwrap();
        let mut scanner = t.scanner(&Scan::new().with_caching(10)).await.unwrap();
        let mut seen = Vec::new();
        while seen.len() < 15 {
            seen.push(scanner.next_row().await.unwrap().unwrap().row);
        }
        // The server holding the region the scan is in.
        let first = conn.admin().regions(&table).await.unwrap()[0].clone();
        let victim = first.server.unwrap().to_string();
        // Writers: eight tasks on the one connection, through the failover.
        let stop = Arc::new(AtomicBool::new(false));
        let mut writers = tokio::task::JoinSet::new();
        for w in 0..8 {
            let u = conn.table("u").unwrap();
            let stop = Arc::clone(&stop);
            writers.spawn(async move {
                let mut acked = Vec::new();
                for n in 0..2000 {
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    let row = format!("{w}-{n:05}");
                    let put = Put::new(row.clone()).add_column("f", "q", row.clone());
                    if u.put(&put).await.is_ok() {
                        acked.push(row);
                    }
                }
                acked
            });
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        Cluster::kill(cluster.servers[&victim]);
        while let Some(row) = scanner.next_row().await {
            seen.push(row.unwrap().row);
        }
        stop.store(true, Ordering::Release);
        let mut acked = Vec::new();
        while let Some(written) = writers.join_next().await {
            acked.extend(written.unwrap());
        }
        // Every acknowledged write reads back through the async client.
        let u = conn.table("u").unwrap();
        for row in &acked {
            let got = u.get(&Get::new(row.clone())).await.unwrap();
            assert_eq!(got.value(b"f", b"q"), Some(row.as_bytes()), "{row}");
        }
        (seen, acked, victim)
    });
    let seen: Vec<String> = seen
        .iter()
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    assert_eq!(seen, rows, "the scan lost, repeated or reordered rows");
    assert!(acked.len() > 8, "only {} writes went through", acked.len());
    println!(
        "killed {victim} mid-scan: {} rows scanned, {} writes acknowledged",
        seen.len(),
        acked.len()
    );
}

/// Creates table `t` (family `f`) split at `splits`.
fn create_t(conn: &RemoteConnection, splits: impl IntoIterator<Item = String>) {
    let splits: Vec<Bytes> = splits.into_iter().map(Bytes::from).collect();
    conn.create_table(
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &splits,
    )
    .unwrap();
}

/// Starts one more region server in the cluster's process group (killed with it); returns it
/// and its address.
fn add_server(cluster: &Cluster, data: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("regionserver")
        .arg("--data")
        .arg(data)
        .args([
            "--zookeeper",
            &cluster.quorum,
            "--port",
            "0",
            "--info-port",
            "0",
        ])
        .args(["--session-timeout-ms", "3000"])
        .stdout(Stdio::piped())
        .process_group(i32::try_from(cluster.child.id()).unwrap())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(60)).unwrap();
    let addr = word_after(&line, "listening on ")
        .unwrap_or_else(|| panic!("{line}"))
        .to_owned();
    (child, addr)
}

#[test]
fn regions_move_to_a_new_server_while_reads_go_on() {
    let cluster = Cluster::start(3, 1);
    let conn = cluster.connect();
    create_t(&conn, (1..12).map(|i| char::from(b'a' + i * 2).to_string()));
    let table = TableName::parse("t").unwrap();
    let rows: Vec<String> = (0..24)
        .map(|i| format!("{}-row", char::from(b'a' + i)))
        .collect();
    for row in &rows {
        conn.put(
            &table,
            &Put::new(row.clone()).add_column("f", "q", row.clone()),
        )
        .unwrap();
    }
    // The cluster status carries each server's own figures for its regions: t's 24 writes,
    // spread over three servers, all counted.
    let summary = conn.cluster_summary().unwrap();
    let t_writes: u64 = summary
        .servers
        .iter()
        .flat_map(|s| &s.regions)
        .filter(|l| l.name.starts_with(b"t,"))
        .map(|l| l.write_requests)
        .sum();
    assert_eq!(t_writes, 24, "{summary:?}");
    let servers_with_writes = summary
        .servers
        .iter()
        .filter(|s| {
            s.regions
                .iter()
                .any(|l| l.name.starts_with(b"t,") && l.write_requests > 0)
        })
        .count();
    assert!(servers_with_writes >= 2, "{summary:?}");
    // Reads go on while regions move (a moving region makes its readers retry).
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (conn, stop, rows, table) = (
            Arc::clone(&conn),
            Arc::clone(&stop),
            rows.clone(),
            table.clone(),
        );
        std::thread::spawn(move || {
            let mut reads = 0;
            for n in 0..100_000 {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                let row = &rows[n % rows.len()];
                let got = conn.get(&table, &Get::new(row.clone())).unwrap();
                assert_eq!(got.value(b"f", b"q"), Some(row.as_bytes()), "{row}");
                reads += 1;
            }
            reads
        })
    };
    let data = cluster.dir.path().join("data");
    let (mut fourth, fourth_addr) = add_server(&cluster, &data);
    // The balancer runs when a server joins: twelve regions, three on each of four servers.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = conn.cluster_summary().unwrap();
        let counts: Vec<usize> = summary
            .servers
            .iter()
            .map(|s| {
                s.regions
                    .iter()
                    .filter(|r| r.name.starts_with(b"t,"))
                    .count()
            })
            .collect();
        if counts.len() == 4 && counts.iter().all(|&n| n == 3) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not balanced within 60 s: {counts:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // By hand: a region moves where it is told, and an unassigned one serves again once
    // assigned.
    let regions = conn.regions(&table).unwrap();
    let first = &regions[0];
    let target = conn
        .cluster_summary()
        .unwrap()
        .servers
        .iter()
        .map(|s| s.name.clone())
        .find(|s| Some(s) != first.server.as_ref())
        .unwrap();
    conn.move_region(first.encoded_name().as_bytes(), Some(&target))
        .unwrap();
    let moved = conn.regions(&table).unwrap();
    assert_eq!(moved[0].server.as_deref(), Some(target.as_str()));
    conn.unassign(&first.name).unwrap();
    conn.assign(&first.name).unwrap();
    // Two adjacent regions on different servers merge (the second moves to the first's server
    // first).
    let before = conn.regions(&table).unwrap();
    let (a, b) = before
        .windows(2)
        .map(|w| (&w[0], &w[1]))
        .find(|(a, b)| a.server != b.server)
        .unwrap();
    conn.merge_regions(&table, &a.name, &b.name).unwrap();
    assert_eq!(conn.regions(&table).unwrap().len(), before.len() - 1);
    stop.store(true, Ordering::Release);
    let reads = reader.join().unwrap();
    assert!(reads > 10, "{reads} reads");
    for row in &rows {
        let got = conn.get(&table, &Get::new(row.clone())).unwrap();
        assert_eq!(got.value(b"f", b"q"), Some(row.as_bytes()));
    }
    // Switched off, the balancer does not run.
    assert!(conn.balance_switch(false).unwrap());
    assert!(!conn.balancer().unwrap());
    // A dry run plans without moving: every region of the table piled on one server.
    let pile = conn.regions(&table).unwrap()[0].server.clone().unwrap();
    for r in conn.regions(&table).unwrap() {
        if r.server.as_deref() != Some(pile.as_str()) {
            conn.move_region(r.encoded_name().as_bytes(), Some(&pile))
                .unwrap();
        }
    }
    let placed = |conn: &RemoteConnection| -> Vec<Option<String>> {
        conn.regions(&table)
            .unwrap()
            .into_iter()
            .map(|r| r.server)
            .collect()
    };
    let piled = placed(&conn);
    assert!(piled.iter().all(|s| s.as_deref() == Some(pile.as_str())));
    let planned = conn.balancer_dry_run().unwrap();
    assert!(
        planned >= 6,
        "{planned} moves planned for 11 regions on one of 4 servers"
    );
    assert_eq!(placed(&conn), piled, "a dry run moves nothing");
    assert!(!conn.balancer_enabled().unwrap());
    assert!(!conn.balance_switch(true).unwrap());
    assert!(conn.balancer().unwrap());
    // A region that grows past its split size asks the master to split it, and its rows stay.
    let mut grow = TableDescriptor::named("grow")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    // The smallest sizes a table takes: flushes at 1 MiB, the first split past 2 MiB.
    grow.memstore_flushsize = 1 << 20;
    grow.max_filesize = 2 << 20;
    conn.create_table(grow, &[]).unwrap();
    let grow = TableName::parse("grow").unwrap();
    let value = vec![b'v'; 1000];
    for i in 0..3500 {
        conn.put(
            &grow,
            &Put::new(format!("row{i:05}")).add_column("f", "q", value.clone()),
        )
        .unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while conn.regions(&grow).unwrap().len() < 2 {
        assert!(
            Instant::now() < deadline,
            "the table did not split within 60 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let scanned = conn
        .table("grow")
        .unwrap()
        .scan(&Scan::new())
        .unwrap()
        .len();
    assert_eq!(scanned, 3500);
    // Disabled, no server serves a region of the table (they close); enabled, they open again,
    // whole.
    conn.disable_table(&grow).unwrap();
    for addr in cluster.servers.keys().chain([&fourth_addr]) {
        let client =
            basalt_embedded::remote::RpcClient::connect(addr.parse().unwrap(), "AdminService")
                .unwrap();
        let online: basalt_proto::pb::GetOnlineRegionResponse = client
            .call(
                "GetOnlineRegion",
                &basalt_proto::pb::GetOnlineRegionRequest {},
            )
            .unwrap();
        assert!(
            !online
                .region_info
                .iter()
                .any(|r| r.table_name.qualifier == b"grow"),
            "{addr} still holds a region of the disabled table"
        );
    }
    conn.enable_table(&grow).unwrap();
    let got = conn.get(&grow, &Get::new("row01234")).unwrap();
    assert_eq!(got.value(b"f", b"q").map(<[u8]>::len), Some(1000));
    let _ = fourth.kill();
    let _ = fourth.wait();
}

/// A cluster whose servers speak TLS, require client certificates and check grants: the
/// master opens regions on the region servers over TLS, each showing its certificate (the
/// servers of a cluster authenticate each other); the superuser's client reads and writes
/// across servers; a grant made through the master reaches every region server without a
/// restart, and so does its revoke; a plaintext client is refused cleanly; a client that is
/// not one of the servers may not call a region server's AdminService.
#[test]
fn a_cluster_over_tls() {
    use basalt_embedded::remote::{RpcClient, TlsClient};
    use basalt_net::tls::Identity;
    let certs = tempfile::tempdir().unwrap();
    let ca = basalt_net::tls::testing::TestCa::new();
    let files = ca.write_files(certs.path());
    let (alice_cert, alice_key) = ca.write_client(certs.path(), "alice");
    let (admin_cert, admin_key) = ca.write_client(certs.path(), "admin");
    let path = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let cluster = Cluster::start_with(
        2,
        1,
        &[
            "--tls-cert",
            &path(&files.server_cert),
            "--tls-key",
            &path(&files.server_key),
            "--tls-ca",
            &path(&files.ca_cert),
            "--simple-auth",
            "false",
            "--authorization",
            "--superuser",
            "admin",
        ],
    );
    let tls_as = |cert: &std::path::Path, key: &std::path::Path| {
        TlsClient::new(
            &files.ca_cert,
            Some(Identity::load(cert, Some(key)).unwrap()),
        )
        .unwrap()
    };
    let conn = cluster.connect_with(RemoteConfig {
        tls: Some(tls_as(&admin_cert, &admin_key)),
        ..RemoteConfig::default()
    });
    let tls = tls_as(&alice_cert, &alice_key);
    let alice = cluster.connect_with(RemoteConfig {
        tls: Some(tls.clone()),
        operation_timeout: Duration::from_secs(5),
        ..RemoteConfig::default()
    });
    create_t(&conn, ["m".to_owned()]);
    let table = TableName::parse("t").unwrap();
    for row in ["a", "z"] {
        conn.put(&table, &Put::new(row).add_column("f", "q", row))
            .unwrap();
    }
    let rows: Vec<_> = Arc::clone(&conn)
        .scan(&table, &Scan::new())
        .unwrap()
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let summary = conn.cluster_summary().unwrap();
    let serving: BTreeSet<_> = summary
        .servers
        .iter()
        .filter(|s| s.regions.iter().any(|r| r.name.starts_with(b"t,")))
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(serving.len(), 2, "{summary:?}");
    // Grants: alice may do nothing until granted; a grant reaches both servers (rows a and z
    // are on different ones) without a restart, and a revoke takes it back.
    let denied = |r: basalt_embedded::Result<basalt_embedded::RowResult>| {
        r.is_err_and(|e| e.java_class().ends_with("AccessDeniedException"))
    };
    assert!(denied(alice.get(&table, &Get::new("a"))));
    let read = basalt_common::acl::Permission {
        principal: "alice".into(),
        scope: basalt_common::acl::Scope::table(&table),
        actions: basalt_common::acl::Actions::parse("R").unwrap(),
    };
    assert!(
        alice.admin().grant(&read, false).is_err(),
        "alice may not grant"
    );
    conn.admin().grant(&read, false).unwrap();
    let in_force = |want_denied: bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let now: Vec<bool> = ["a", "z"]
                .iter()
                .map(|row| denied(alice.get(&table, &Get::new(*row))))
                .collect();
            if now.iter().all(|d| *d == want_denied) {
                return;
            }
            assert!(Instant::now() < deadline, "grants not in force: {now:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    in_force(false);
    assert_eq!(
        alice.get(&table, &Get::new("z")).unwrap().value(b"f", b"q"),
        Some(&b"z"[..])
    );
    let e = alice
        .put(&table, &Put::new("b").add_column("f", "q", "b"))
        .expect_err("alice may only read");
    assert!(e.to_string().contains("'alice'"), "{e}");
    conn.admin()
        .revoke("alice", &basalt_common::acl::Scope::table(&table))
        .unwrap();
    in_force(true);
    // Plaintext: refused with the reason.
    let plain = RemoteConnection::through_zookeeper(
        &cluster.quorum,
        RemoteConfig {
            operation_timeout: Duration::from_secs(5),
            ..RemoteConfig::default()
        },
    )
    .and_then(|c| c.get(&table, &Get::new("a")));
    let e = plain.expect_err("plaintext must be refused").to_string();
    assert!(e.contains("accepts TLS connections only"), "{e}");
    // AdminService is for the cluster's servers: alice's certificate is not one of theirs.
    let server = cluster.servers.keys().next().unwrap().parse().unwrap();
    let admin = RpcClient::connect_with(server, "AdminService", "alice", Some(&tls)).unwrap();
    let refused: Result<basalt_proto::pb::GetOnlineRegionResponse, _> = admin.call(
        "GetOnlineRegion",
        &basalt_proto::pb::GetOnlineRegionRequest::default(),
    );
    let e = refused
        .expect_err("only servers call AdminService")
        .to_string();
    assert!(
        e.contains("AccessDeniedException") && e.contains("'alice'"),
        "{e}"
    );
}

/// Issue 33 on a cluster: a snapshot of a table whose regions are on three region servers
/// (each flushed by its server, its files linked from the shared storage by the master); a
/// clone reads the snapshot's rows; after more writes, the table disabled and restored
/// reads as the snapshot again once enabled.
#[test]
fn snapshots_clones_and_restores_on_a_cluster() {
    let cluster = Cluster::start(3, 1);
    let conn = cluster.connect();
    create_t(&conn, ["g".to_owned(), "p".to_owned()]);
    let t = TableName::parse("t").unwrap();
    let rows = |table: &TableName| -> Vec<(Bytes, Vec<u8>)> {
        Arc::clone(&conn)
            .scan(table, &basalt_embedded::Scan::new())
            .unwrap()
            .map(|r| {
                let r = r.unwrap();
                let v = r.value(b"f", b"q").unwrap_or_default().to_vec();
                (r.row, v)
            })
            .collect()
    };
    for i in 0..300 {
        let row = format!("{}{i:03}", ['a', 'h', 'x'][i % 3]);
        conn.put(&t, &Put::new(row.clone()).add_column("f", "q", row))
            .unwrap();
    }
    let servers: BTreeSet<_> = conn
        .regions(&t)
        .unwrap()
        .into_iter()
        .filter_map(|r| r.server)
        .collect();
    assert!(servers.len() > 1, "regions on several servers: {servers:?}");
    let before = rows(&t);
    conn.snapshot("s", &t).unwrap();
    for i in 0..50 {
        conn.put(&t, &Put::new(format!("later{i}")).add_column("f", "q", "x"))
            .unwrap();
    }
    let c = TableName::parse("c").unwrap();
    conn.clone_snapshot("s", &c).unwrap();
    assert_eq!(rows(&c), before, "the clone is the snapshot");
    conn.disable_table(&t).unwrap();
    conn.restore_snapshot("s").unwrap();
    conn.enable_table(&t).unwrap();
    assert_eq!(rows(&t), before, "the restored table is the snapshot");
    assert_eq!(conn.regions(&t).unwrap().len(), 3);
}

/// Issue 35's object store on a cluster: every region server writes its store files to the
/// bucket (pointers on the shared directory, WALs beside them); a region server killed with
/// SIGKILL has its regions reopened on the survivor, which reads their files from the bucket
/// and replays their logs, losing no acknowledged write.
#[test]
fn a_cluster_keeps_its_store_files_on_an_object_store() {
    let s3 = basalt_fs::S3TestServer::start().unwrap();
    let url = s3.url("cluster", Duration::from_secs(2));
    let cluster = Cluster::start_with_env(
        2,
        1,
        &["--object-store", &url],
        &basalt_fs::S3TestServer::CREDENTIALS,
    );
    let conn = cluster.connect();
    create_t(&conn, ["h".to_owned()]);
    let t = TableName::parse("t").unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let flushed = write_load(Arc::clone(&conn), 0, Arc::clone(&stop), 400)
        .join()
        .unwrap();
    conn.flush(&t).unwrap();
    let mut dirs = vec![cluster.dir.path().join("data/data/default/t")];
    let mut pointers = 0;
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.parent().and_then(|p| p.file_name()) == Some("f".as_ref()) {
                let text = std::fs::read(&path).unwrap();
                assert!(text.starts_with(b"basalt-object 1\n"), "{}", path.display());
                pointers += 1;
            }
        }
    }
    assert!(
        pointers >= 2,
        "both regions flushed to the bucket: {pointers}"
    );
    let logged = write_load(Arc::clone(&conn), 1, stop, 200).join().unwrap();

    let (holders, _) = placement(&conn);
    let victim = addr_of(holders.iter().next().unwrap());
    Cluster::kill(cluster.servers[&victim]);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = conn.cluster_summary();
        let settled = summary.as_ref().is_ok_and(|s| {
            s.live_servers == 1
                && s.servers
                    .iter()
                    .flat_map(|s| &s.regions)
                    .filter(|r| r.name.starts_with(b"t,"))
                    .count()
                    == 2
        });
        if settled {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the regions did not come back within 60 s: {summary:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    check_rows(&conn, &flushed);
    check_rows(&conn, &logged);
}

/// A master that takes over while a region server runs unregistered (its ZooKeeper session
/// ended, its process alive and holding its log: here, stopped with SIGSTOP) splits that
/// server's log before it opens the server's regions elsewhere, so edits that were only in
/// that log stay. Found by the fault campaign (issue 45): a partition of the active master and
/// a region server from the rest of the cluster lost a counter's increments.
#[test]
fn a_master_taking_over_splits_the_log_of_a_server_that_lost_its_session_but_runs() {
    let cluster = Cluster::start(2, 1);
    let conn = cluster.connect();
    create_t(&conn, ["d", "h", "l"].map(str::to_owned));
    let writer = write_load(Arc::clone(&conn), 0, Arc::new(AtomicBool::new(false)), 400);
    let acked = writer.join().unwrap();
    assert_eq!(acked.len(), 400);
    let (holders, meta) = placement(&conn);
    let victim = holders
        .iter()
        .map(|h| addr_of(h))
        .find(|a| *a != addr_of(&meta))
        .expect("a server holding regions of t but not meta");
    let (master, master_pid) = cluster.masters.iter().next().unwrap();
    let victim_pid = cluster.servers[&victim];
    let signal = |sig: &str, pid: u32| {
        let done = Command::new("kill").args([sig, &pid.to_string()]).status();
        assert!(done.unwrap().success());
    };
    signal("-STOP", victim_pid);
    Cluster::kill(*master_pid);
    // Both sessions end (3 s); the stopped server still holds its log's lock.
    std::thread::sleep(Duration::from_secs(6));
    let mut new_master = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .arg("master")
        .arg("--data")
        .arg(cluster.dir.path().join("data"))
        .args(["--zookeeper", &cluster.quorum])
        .args(["--port", "0", "--info-port", "0"])
        .args(["--session-timeout-ms", "3000"])
        .stdout(Stdio::null())
        .process_group(i32::try_from(cluster.child.id()).unwrap())
        .spawn()
        .unwrap();
    let conn = Arc::new(
        RemoteConnection::through_zookeeper(
            &cluster.quorum,
            RemoteConfig {
                operation_timeout: Duration::from_secs(30),
                rpc_timeout: Duration::from_secs(10),
                ..RemoteConfig::default()
            },
        )
        .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = conn.cluster_summary();
        if let Ok(s) = &summary
            && s.master != *master
            && s.servers.iter().map(|s| s.regions.len()).sum::<usize>() == 5
            && s.servers.iter().all(|s| addr_of(&s.name) != victim)
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the new master did not place every region on the live server: {summary:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    check_rows(&conn, &acked);
    signal("-CONT", victim_pid);
    let _ = new_master.kill();
    let _ = new_master.wait();
}
