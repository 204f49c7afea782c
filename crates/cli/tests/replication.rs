//! Replication across real clusters on this machine (each `basalt cluster start` with its own
//! ZooKeeper) and a standalone server: cluster A ships to cluster B, B on to a standalone
//! server C, and C back to A, so every pairing runs and the ring would loop if edits did not
//! carry the clusters they came through. Under a write load on A, shipping slowed by a
//! bandwidth limit, kill -9 of one of A's region servers leaves a backlog in its WAL: a survivor
//! claims its queue, and B and C still end with every acknowledged write, once. Writes on C
//! reach A and B and stop there.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::replication::PeerConfig;
use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Connection, Put, Scan, TableDescriptor, TableName,
};
use basalt_rpc::RpcConfig;
use support::cluster::Cluster;

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

fn descriptor() -> TableDescriptor {
    let mut f = ColumnFamilyDescriptor::new("f");
    f.replication_scope = 1;
    TableDescriptor::new(table()).with_family(f)
}

/// `127.0.0.1:port` -> HBase's cluster key, `127.0.0.1:port:/hbase`.
fn cluster_key(quorum: &str) -> String {
    format!("{quorum}:/hbase")
}

/// Every cell of `t`, all versions, as (row, timestamp, value).
fn cells(c: &Arc<dyn Client>) -> Vec<(Bytes, i64, Bytes)> {
    let rows = Arc::clone(c)
        .scan(&table(), &Scan::new().read_all_versions())
        .unwrap();
    rows.flat_map(|r| r.unwrap().cells)
        .map(|c| {
            (
                Bytes::copy_from_slice(c.row()),
                c.timestamp,
                Bytes::copy_from_slice(c.value()),
            )
        })
        .collect()
}

/// Waits (90 s at most) until every one of `clients` holds what the first does.
fn converge(what: &str, clients: &[&Arc<dyn Client>]) -> Vec<(Bytes, i64, Bytes)> {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let all: Vec<_> = clients.iter().map(|c| cells(c)).collect();
        if all.windows(2).all(|w| w[0] == w[1]) {
            return all.into_iter().next().unwrap_or_default();
        }
        assert!(
            Instant::now() < deadline,
            "{what}: no convergence, cells: {:?}",
            all.iter().map(Vec::len).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A standalone server in this process, on a directory of its own, served over the native RPC:
/// its client, and its `hbase+rpc://` cluster key. Its RPC stops when `Standalone` drops.
struct Standalone {
    client: Arc<dyn Client>,
    rpc: Option<basalt_rpc::RpcServer>,
    _dir: tempfile::TempDir,
}

impl Standalone {
    fn start() -> Standalone {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::builder()
            .file_system(Arc::new(basalt_fs::LocalFs))
            .root(dir.path())
            .open()
            .unwrap();
        let rpc = conn
            .serve_rpc(RpcConfig {
                bind: "127.0.0.1:0".parse().unwrap(),
                ..RpcConfig::default()
            })
            .unwrap();
        Standalone {
            client: Arc::new(conn),
            rpc: Some(rpc),
            _dir: dir,
        }
    }

    fn key(&self) -> String {
        let addr = self.rpc.as_ref().map(|r| r.local_addr()).unwrap();
        format!("hbase+rpc://{addr}")
    }
}

impl Drop for Standalone {
    fn drop(&mut self) {
        if let Some(rpc) = self.rpc.take() {
            rpc.shutdown();
        }
    }
}

#[test]
fn clusters_and_a_standalone_server_replicate_in_a_ring_through_a_crash() {
    let a = Cluster::start(3, 1);
    let b = Cluster::start(2, 1);
    let a_conn: Arc<dyn Client> = a.connect();
    let b_conn: Arc<dyn Client> = b.connect();
    let c = Standalone::start();
    let c_conn = Arc::clone(&c.client);
    let splits: Vec<Bytes> = ["k2", "k4", "k6", "k8"].map(Bytes::from).to_vec();
    for conn in [&a_conn, &b_conn, &c_conn] {
        conn.create_table(descriptor(), &splits).unwrap();
    }
    // Slow at first, so the killed server leaves a backlog only its queue's claimer can ship.
    let mut to_b = PeerConfig::new(cluster_key(&b.quorum));
    to_b.bandwidth = 4096;
    a_conn.add_peer("b", &to_b, true).unwrap();
    b_conn
        .add_peer("c", &PeerConfig::new(c.key()), true)
        .unwrap();
    c_conn
        .add_peer("a", &PeerConfig::new(cluster_key(&a.quorum)), true)
        .unwrap();

    // A write load on A; one of its region servers is killed while it ships.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (conn, stop) = (Arc::clone(&a_conn), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut acked = Vec::new();
            let mut i = 0u32;
            while !stop.load(Ordering::Acquire) && i < 20_000 {
                let row = format!("k{}{:05}", i % 10, i);
                let put = Put::new(row.clone()).add_column("f", "q", format!("v{i}"));
                if conn.put(&table(), &put).is_ok() {
                    acked.push(row);
                }
                i += 1;
            }
            acked
        })
    };
    std::thread::sleep(Duration::from_secs(3));
    let (victim, pid) = a
        .servers
        .iter()
        .next()
        .map(|(addr, pid)| (addr.clone(), *pid))
        .unwrap();
    Cluster::kill(pid);
    println!("killed region server {victim} of cluster A");
    std::thread::sleep(Duration::from_secs(6));
    stop.store(true, Ordering::Release);
    to_b.bandwidth = 0;
    a_conn.update_peer_config("b", &to_b).unwrap();
    let acked = writer.join().unwrap();
    assert!(
        acked.len() > 100,
        "only {} writes acknowledged",
        acked.len()
    );

    // Writes on C go to A, and on to B.
    for i in 0..50 {
        c_conn
            .put(
                &table(),
                &Put::new(format!("k9c{i:03}")).add_column("f", "q", "from c"),
            )
            .unwrap();
    }
    let all = converge("A, B and C", &[&a_conn, &b_conn, &c_conn]);
    // Every acknowledged write, once (one version a row: nothing applied twice shows).
    for row in &acked {
        let n = all
            .iter()
            .filter(|(r, _, _)| r[..] == *row.as_bytes())
            .count();
        assert_eq!(n, 1, "row {row}: {n} versions");
    }
    assert_eq!(
        all.iter().filter(|(_, _, v)| v[..] == *b"from c").count(),
        50
    );
    // The queue of the killed server was claimed by a survivor and shipped to the end.
    let claimed = std::fs::read_dir(a.dir.path().join("data/replication/rs"))
        .unwrap()
        .filter_map(Result::ok)
        .any(|d| {
            d.file_name()
                .to_string_lossy()
                .contains(&victim.replace(':', ","))
        });
    assert!(!claimed, "the killed server's queues were never claimed");

    // HBase's VerifyReplication, row by row: all good; a row only the peer has is bad.
    let verify = || {
        let (ok, out, err) = support::basalt(&["verifyrep", "--zookeeper", &a.quorum, "b", "t"]);
        assert!(ok, "{out}{err}");
        out
    };
    let out = verify();
    let good: usize = out
        .split("GOODROWS=")
        .nth(1)
        .and_then(|r| r.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    assert!(
        good >= acked.len() + 50,
        "{} acked, {} cells: {out}",
        acked.len(),
        all.len()
    );
    assert!(out.contains("BADROWS=0"), "{out}");
    // (The ring would carry it back to A: C holds it.)
    c_conn.set_peer_enabled("a", false).unwrap();
    // Sources look at their peers' state every second.
    std::thread::sleep(Duration::from_secs(2));
    b_conn
        .put(
            &table(),
            &Put::new("k0stray").add_column("f", "q", "only at b"),
        )
        .unwrap();
    let out = verify();
    assert!(out.contains("BADROWS=1"), "{out}");
    assert!(out.contains("ONLY_IN_PEER_TABLE_ROWS=1"), "{out}");
}

/// `basalt standalone` killed -9 while its shipping lags: the next run on the same directory
/// claims the queue the last one left, and ships the rest from its WAL.
#[test]
fn a_standalone_source_killed_mid_shipping_ships_the_rest_after_restart() {
    let peer = Standalone::start();
    let peer_conn = Arc::clone(&peer.client);
    peer_conn.create_table(descriptor(), &[]).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let source = support::Server::start_in(&data, &[]);
    let conn: Arc<dyn Client> = Arc::new(
        RemoteConnection::connect(source.rpc.parse().unwrap(), RemoteConfig::default()).unwrap(),
    );
    conn.create_table(descriptor(), &[]).unwrap();
    let mut config = PeerConfig::new(peer.key());
    config.bandwidth = 2048;
    conn.add_peer("p", &config, true).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let mut acked = Vec::new();
    for i in 0..1000 {
        let row = format!("r{i:04}");
        conn.put(&table(), &Put::new(row.clone()).add_column("f", "q", "v"))
            .unwrap();
        acked.push(row);
    }
    drop(conn);
    drop(source);
    let shipped_before = cells(&peer_conn).len();
    assert!(
        shipped_before < acked.len(),
        "everything shipped before the kill"
    );

    let source = support::Server::start_in(&data, &[]);
    let conn: Arc<dyn Client> = Arc::new(
        RemoteConnection::connect(source.rpc.parse().unwrap(), RemoteConfig::default()).unwrap(),
    );
    // What the restarted server ships shows on /metrics: read while the claimed queue still
    // ships at its bandwidth (a recovered queue's figures go once it has shipped it all).
    let shipped = |metrics: &str| -> u64 {
        metrics
            .lines()
            .filter(|l| l.starts_with("basalt_replication_source_shipped_ops_total{peer=\"p\""))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<u64>().ok())
            .sum()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    let metrics = loop {
        let (code, metrics) = support::http_get(&source.info, "/metrics");
        assert_eq!(code, 200);
        if shipped(&metrics) > 0 || Instant::now() > deadline {
            break metrics;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(shipped(&metrics) > 0, "{metrics}");
    config.bandwidth = 0;
    conn.update_peer_config("p", &config).unwrap();
    let all = converge("the restarted source and its peer", &[&conn, &peer_conn]);
    assert_eq!(
        all.len(),
        acked.len(),
        "{shipped_before} shipped before the kill"
    );

    // What shipped shows, on /jmx (HBase's bean), the server's page and `status 'replication'`.
    let (_, jmx) = support::http_get(
        &source.info,
        "/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Replication",
    );
    for key in [
        "\"source.p.ageOfLastShippedOp\"",
        "\"source.p.sizeOfLogQueue\"",
        "\"source.p.shippedOps\"",
        "\"source.p.shippedBytes\"",
        "\"source.p.failedBatches\"",
        "\"sink.appliedOps\"",
    ] {
        assert!(jmx.contains(key), "{key} missing: {jmx}");
    }
    let (_, page) = support::http_get(&source.info, "/rs-status");
    assert!(page.contains("id=\"replication-sources\""), "{page}");
    let (ok, out, err) = support::basalt_with_input(
        &["shell", "--connect", &source.rpc, "-n"],
        "status 'replication'\nstatus 'replication', 'source'\n",
    );
    assert!(ok, "{out}{err}");
    assert!(out.contains("SOURCE: PeerID=p, Queue(Normal)=p"), "{out}");
    assert!(out.contains("SINK: TimeStampStarted="), "{out}");
}

/// A serial peer gets each row's edits in the order they were made, through a split and a
/// move of the row's region while shipping lags. Every write of a row puts the same cell at
/// the same timestamp, so the value the peer ends with is the one it applied last: an edit
/// applied out of order leaves an older value there, and the two sides never converge.
#[test]
fn a_serial_peer_gets_each_row_in_order_through_a_split_and_a_move() {
    let a = Cluster::start(2, 1);
    let conn: Arc<dyn Client> = a.connect();
    let peer = Standalone::start();
    let peer_conn = Arc::clone(&peer.client);
    conn.create_table(descriptor(), &[]).unwrap();
    peer_conn.create_table(descriptor(), &[]).unwrap();
    let mut config = PeerConfig::new(peer.key());
    config.serial = true;
    config.bandwidth = 16 << 10;
    conn.add_peer("serial", &config, true).unwrap();
    std::thread::sleep(Duration::from_millis(1500));

    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (conn, stop) = (Arc::clone(&conn), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Acquire) && n < 50_000 {
                let row = format!("k{}", n % 10);
                let put = Put::new(row).add_column_at("f", "q", 1000, format!("v{n:06}"));
                // A write that fails is retried by the next round's write of the row.
                let _ = conn.put(&table(), &put);
                n += 1;
            }
            n
        })
    };
    std::thread::sleep(Duration::from_secs(2));
    conn.split(&table(), Some(b"k5")).unwrap();
    std::thread::sleep(Duration::from_secs(2));
    // The region holding k0 goes to the other server.
    let summary = conn.cluster_summary().unwrap();
    let (from, region) = summary
        .servers
        .iter()
        .flat_map(|s| {
            s.regions
                .iter()
                .map(move |r| (s.name.clone(), r.name.clone()))
        })
        .find(|(_, r)| r.starts_with(b"t,,"))
        .unwrap();
    let to = summary
        .servers
        .iter()
        .map(|s| s.name.clone())
        .find(|s| *s != from)
        .unwrap();
    conn.move_region(&region, Some(&to)).unwrap();
    println!(
        "split t at k5, moved {} from {from} to {to}",
        String::from_utf8_lossy(&region)
    );
    std::thread::sleep(Duration::from_secs(3));
    stop.store(true, Ordering::Release);
    let written = writer.join().unwrap();
    config.bandwidth = 0;
    conn.update_peer_config("serial", &config).unwrap();
    let all = converge("the serial peer", &[&conn, &peer_conn]);
    assert_eq!(all.len(), 10, "{written} writes: {all:?}");
}
