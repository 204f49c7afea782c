//! Replication between two servers on this machine, each an engine on its own data directory
//! served over the native RPC: the peer converges on the source's rows (deletes too, and only
//! the families that replicate), two servers replicating to each other send nothing back and
//! forth, a disabled or unreachable peer gets the backlog once it takes it again, and the WAL
//! is kept meanwhile.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_client::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::replication::PeerConfig;
use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, DataClient, Delete, Put, Scan, ServerAdmin,
    TableDescriptor, TableName, WalConfig,
};
use basalt_regionserver::replication::ReplicationConfig;
use basalt_rpc::{RpcConfig, RpcServer};

/// A server: an engine on a directory of its own, and its RPC.
struct Server {
    conn: Connection,
    rpc: Option<RpcServer>,
    dir: tempfile::TempDir,
    port: u16,
}

fn fast() -> ReplicationConfig {
    ReplicationConfig {
        poll: Duration::from_millis(20),
        tick: Duration::from_millis(100),
        max_backoff: Duration::from_millis(300),
        rpc_timeout: Duration::from_secs(5),
        ..ReplicationConfig::default()
    }
}

fn open_with(dir: &std::path::Path, wal: WalConfig) -> Connection {
    Connection::builder()
        .file_system(Arc::new(basalt_fs::LocalFs))
        .root(dir)
        .replication(fast())
        .wal(wal)
        .open()
        .unwrap()
}

fn serve(conn: &Connection, port: u16) -> RpcServer {
    conn.serve_rpc(RpcConfig {
        bind: format!("127.0.0.1:{port}").parse().unwrap(),
        ..RpcConfig::default()
    })
    .unwrap()
}

impl Server {
    fn start() -> Server {
        Self::start_with(WalConfig::default())
    }

    fn start_with(wal: WalConfig) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_with(dir.path(), wal);
        let rpc = serve(&conn, 0);
        let port = rpc.local_addr().port();
        Server {
            conn,
            rpc: Some(rpc),
            dir,
            port,
        }
    }

    fn key(&self) -> String {
        format!("hbase+rpc://127.0.0.1:{}", self.port)
    }

    /// Stops answering (the peer is down), and comes back on the same port.
    fn down(&mut self) {
        if let Some(rpc) = self.rpc.take() {
            rpc.shutdown();
        }
    }

    fn up(&mut self) {
        self.rpc = Some(serve(&self.conn, self.port));
    }

    fn shipped_ops(&self) -> u64 {
        self.conn
            .region_server()
            .replication()
            .map(|r| {
                r.sources()
                    .iter()
                    .map(|s| {
                        s.metrics
                            .shipped_ops
                            .load(std::sync::atomic::Ordering::Relaxed)
                    })
                    .sum()
            })
            .unwrap_or(0)
    }
}

fn table() -> TableName {
    TableName::parse("t").unwrap()
}

/// `t` with family `f` replicated and `local` not.
fn create(c: &Connection) {
    let mut f = ColumnFamilyDescriptor::new("f");
    f.replication_scope = 1;
    let d = TableDescriptor::new(table())
        .with_family(f)
        .with_family(ColumnFamilyDescriptor::new("local"));
    TableAdmin::create_table(c, d, &[]).unwrap();
}

/// Every cell of `t`'s family `family`, as (row, qualifier, timestamp, value).
type Cells = Vec<(Vec<u8>, Vec<u8>, i64, Vec<u8>)>;

fn cells(c: &Connection, family: &str) -> Cells {
    let scan = Scan::new()
        .add_family(family.to_owned())
        .read_all_versions();
    let rows = Arc::new(c.clone()).scan(&table(), &scan).unwrap();
    rows.flat_map(|r| r.unwrap().cells)
        .map(|c| {
            (
                c.row().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp,
                c.value().to_vec(),
            )
        })
        .collect()
}

/// Waits (30 s at most) until `b` holds what `a` holds in family `f`.
fn converge(a: &Connection, b: &Connection) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (x, y) = (cells(a, "f"), cells(b, "f"));
        if x == y {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the peer did not converge: {} cells at the source, {} at the peer",
            x.len(),
            y.len()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn write(c: &Connection, from: usize, to: usize, tag: &str) {
    for i in from..to {
        let row = format!("row{i:05}");
        DataClient::put(
            c,
            &table(),
            &Put::new(row.clone())
                .add_column("f", "q", format!("{tag}{i}"))
                .add_column("local", "q", "stays here"),
        )
        .unwrap();
        if i % 10 == 3 {
            DataClient::delete(c, &table(), &Delete::new(row)).unwrap();
        }
    }
}

#[test]
fn a_peer_converges_on_the_replicated_families() {
    let a = Server::start();
    let b = Server::start();
    create(&a.conn);
    create(&b.conn);
    a.conn
        .add_peer("1", &PeerConfig::new(b.key()), true)
        .unwrap();
    write(&a.conn, 0, 400, "a");
    converge(&a.conn, &b.conn);
    assert!(!cells(&a.conn, "f").is_empty());
    assert!(
        cells(&b.conn, "local").is_empty(),
        "a family of scope 0 shipped"
    );
    // A column deleted at the source goes at the peer too, and what comes after.
    DataClient::delete(
        &a.conn,
        &table(),
        &Delete::new("row00001").add_columns("f", "q"),
    )
    .unwrap();
    write(&a.conn, 400, 450, "late");
    converge(&a.conn, &b.conn);
    assert!(a.shipped_ops() > 0);
}

#[test]
fn servers_replicating_to_each_other_send_nothing_back() {
    let a = Server::start();
    let b = Server::start();
    create(&a.conn);
    create(&b.conn);
    a.conn
        .add_peer("b", &PeerConfig::new(b.key()), true)
        .unwrap();
    b.conn
        .add_peer("a", &PeerConfig::new(a.key()), true)
        .unwrap();
    write(&a.conn, 0, 200, "a");
    write(&b.conn, 200, 400, "b");
    // Rows both write: the later write wins on both sides.
    write(&a.conn, 100, 110, "both-a");
    write(&b.conn, 300, 310, "both-b");
    converge(&a.conn, &b.conn);
    std::thread::sleep(Duration::from_millis(500));
    let before = (a.shipped_ops(), b.shipped_ops());
    // Each side shipped its own writes once: no edit came back.
    assert!(before.0 >= 210 && before.1 >= 210, "{before:?}");
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        (a.shipped_ops(), b.shipped_ops()),
        before,
        "edits ping-pong"
    );
    assert_eq!(cells(&a.conn, "f"), cells(&b.conn, "f"));
}

#[test]
fn a_disabled_or_unreachable_peer_gets_the_backlog_later() {
    let a = Server::start();
    let mut b = Server::start();
    create(&a.conn);
    create(&b.conn);
    a.conn
        .add_peer("1", &PeerConfig::new(b.key()), false)
        .unwrap();
    write(&a.conn, 0, 100, "a");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        cells(&b.conn, "f").is_empty(),
        "a disabled peer was shipped to"
    );
    a.conn.set_peer_enabled("1", true).unwrap();
    converge(&a.conn, &b.conn);

    // The peer goes away: the source keeps serving writes, and they wait.
    b.down();
    write(&a.conn, 100, 200, "while-down");
    std::thread::sleep(Duration::from_millis(800));
    let sources = a.conn.region_server().replication().unwrap().sources();
    let m = &sources[0].metrics;
    assert!(m.failed_batches.load(std::sync::atomic::Ordering::Relaxed) > 0);
    assert!(m.age_ms.load(std::sync::atomic::Ordering::Relaxed) >= 500);
    b.up();
    converge(&a.conn, &b.conn);
    let _ = &b.dir;
}

/// The archived segments of `conn`'s server.
fn archived(s: &Server) -> usize {
    let dir = s.dir.path().join("oldWALs");
    std::fs::read_dir(&dir)
        .map(|servers| {
            servers
                .filter_map(Result::ok)
                .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten())
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn the_wal_stays_while_a_disabled_peer_needs_it_and_goes_after() {
    // Small segments, archived as soon as their regions flush, deleted at once after.
    let wal = WalConfig {
        roll_size: 8 << 10,
        archive_ttl: Some(Duration::ZERO),
        ..WalConfig::default()
    };
    let a = Server::start_with(wal);
    let b = Server::start();
    create(&a.conn);
    create(&b.conn);
    a.conn
        .add_peer("1", &PeerConfig::new(b.key()), false)
        .unwrap();
    // Wait for the queue: it starts at the oldest segment there is.
    std::thread::sleep(Duration::from_millis(500));
    for round in 0..5 {
        write(&a.conn, round * 200, round * 200 + 200, "a");
        ServerAdmin::flush(&a.conn, &table()).unwrap();
    }
    // The compactor's tick would have deleted them by now.
    std::thread::sleep(Duration::from_millis(2500));
    let kept = archived(&a);
    assert!(
        kept >= 3,
        "only {kept} archived segments kept for the disabled peer"
    );
    a.conn.set_peer_enabled("1", true).unwrap();
    converge(&a.conn, &b.conn);
    let deadline = Instant::now() + Duration::from_secs(20);
    while archived(&a) >= kept {
        assert!(
            Instant::now() < deadline,
            "shipped segments were never cleaned"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Writes a store file of family `f` with `rows` rows, ready to bulk load.
fn store_file(dir: &std::path::Path, rows: std::ops::Range<u32>) -> std::path::PathBuf {
    let path = dir.join(format!("load-{}", rows.start));
    let mut w = basalt_storefile::StoreFileWriter::create(
        Arc::new(basalt_fs::LocalFs),
        &path,
        basalt_storefile::WriterOptions::for_family(&ColumnFamilyDescriptor::new("f")),
    )
    .unwrap();
    for i in rows {
        let row = format!("bulk{i:05}");
        w.append(&basalt_embedded::Cell::put(
            row.as_bytes(),
            b"f",
            b"q",
            500,
            b"loaded",
        ))
        .unwrap();
    }
    w.finish().unwrap();
    path
}

#[test]
fn bulk_loaded_files_go_to_peers_that_ask_for_them() {
    let a = Server::start();
    let b = Server::start();
    let c = Server::start();
    for s in [&a, &b, &c] {
        create(&s.conn);
    }
    let mut wants = PeerConfig::new(b.key());
    wants
        .configuration
        .insert("hbase.replication.bulkload.enabled".into(), "true".into());
    a.conn.add_peer("b", &wants, true).unwrap();
    a.conn
        .add_peer("c", &PeerConfig::new(c.key()), true)
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let files = tempfile::tempdir().unwrap();
    let file = store_file(files.path(), 0..300);
    DataClient::bulk_load(
        &a.conn,
        &table(),
        b"bulk00000",
        &[("f".into(), file.clone())],
    )
    .unwrap();
    // The loaded file may go from under the source: it kept its own link.
    std::fs::remove_file(&file).unwrap();
    write(&a.conn, 0, 20, "after");
    converge(&a.conn, &b.conn);
    assert_eq!(
        cells(&b.conn, "f")
            .iter()
            .filter(|c| c.3 == b"loaded")
            .count(),
        300
    );
    // The peer that did not ask gets the writes, not the load.
    let deadline = Instant::now() + Duration::from_secs(30);
    while cells(&c.conn, "f").len() < 18 {
        assert!(Instant::now() < deadline, "peer c got nothing");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    assert!(cells(&c.conn, "f").iter().all(|c| c.3 != b"loaded"));
}
