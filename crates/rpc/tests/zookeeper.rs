//! Publication in a real ZooKeeper (Debian's, started by `tests/zookeeper/start.sh` on a free
//! port, installed by it if missing): the znodes native clients read, in HBase's framing, and
//! gone again after shutdown.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use basalt_coord::{Published, ZkPublisher, unframe};
use basalt_rpc::pb;
use prost::Message;
use zookeeper_client as zk;

mod support;

/// A ZooKeeper server for one test, killed when dropped.
struct ZooKeeper {
    port: u16,
    pid: u32,
    _dir: tempfile::TempDir,
}

impl ZooKeeper {
    fn start() -> ZooKeeper {
        let dir = tempfile::tempdir().unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/zookeeper/start.sh");
        let out = Command::new("bash")
            .arg(script)
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ZooKeeper did not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut parts = text.split_whitespace();
        let port = parts.next().unwrap().parse().unwrap();
        let pid = parts.next().unwrap().parse().unwrap();
        ZooKeeper {
            port,
            pid,
            _dir: dir,
        }
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

fn read(port: u16, paths: &[&str]) -> Vec<Option<Vec<u8>>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = zk::Client::connect(&format!("127.0.0.1:{port}"))
            .await
            .unwrap();
        let mut out = Vec::new();
        for p in paths {
            out.push(client.get_data(p).await.ok().map(|(d, _)| d));
        }
        out
    })
}

#[test]
fn znodes_as_hbase_clients_read_them() {
    let zk = ZooKeeper::start();
    let published = Published {
        host: "127.0.0.1".into(),
        rpc_port: 16020,
        master_port: 16000,
        start_code: 1_700_000_000_000,
        cluster_id: "basalt-test".into(),
    };
    let publisher = ZkPublisher::start(
        &format!("127.0.0.1:{}", zk.port),
        published,
        Duration::from_secs(20),
    )
    .unwrap();
    let got = read(
        zk.port,
        &[
            "/hbase/master",
            "/hbase/meta-region-server",
            "/hbase/hbaseid",
            "/hbase/rs/127.0.0.1,16020,1700000000000",
        ],
    );
    let master = pb::Master::decode(unframe(got[0].as_ref().unwrap()).unwrap()).unwrap();
    assert_eq!(master.master.port, Some(16000));
    assert_eq!(master.master.host_name, "127.0.0.1");
    let meta = pb::MetaRegionServer::decode(unframe(got[1].as_ref().unwrap()).unwrap()).unwrap();
    assert_eq!(meta.server.port, Some(16020));
    assert_eq!(meta.state, Some(pb::RegionStateState::Open as i32));
    let id = pb::ClusterId::decode(unframe(got[2].as_ref().unwrap()).unwrap()).unwrap();
    assert_eq!(id.cluster_id, "basalt-test");
    assert!(got[3].is_some(), "the region server's ephemeral node");
    publisher.shutdown();
    let after = read(zk.port, &["/hbase/master", "/hbase/meta-region-server"]);
    assert!(after.iter().all(Option::is_none), "{after:?}");
}

#[test]
fn an_unreachable_zookeeper_is_a_clear_error() {
    // A port nobody listens on (bound, then released).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let e = ZkPublisher::start(
        &format!("127.0.0.1:{port}"),
        Published {
            host: "127.0.0.1".into(),
            rpc_port: 1,
            master_port: 1,
            start_code: 1,
            cluster_id: "x".into(),
        },
        Duration::from_secs(2),
    )
    .unwrap_err();
    assert!(e.to_string().contains("zookeeper"), "{e}");
}

#[test]
fn a_remote_client_finds_the_server_through_zookeeper() {
    use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
    use basalt_embedded::{ColumnFamilyDescriptor, Connection, Get, Put, TableDescriptor};
    let zk = ZooKeeper::start();
    let quorum = format!("127.0.0.1:{}", zk.port);
    // Nothing published yet: a clear error naming the node.
    let e = RemoteConnection::through_zookeeper(
        &quorum,
        RemoteConfig {
            rpc_timeout: Duration::from_secs(10),
            ..RemoteConfig::default()
        },
    )
    .unwrap_err();
    assert!(e.to_string().contains("/hbase/meta-region-server"), "{e}");

    // Meta names the server where it serves, as `basalt standalone` makes it: clients that
    // find it through ZooKeeper go where meta says.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let conn = Connection::builder()
        .server_name(&format!("127.0.0.1:{port}"))
        .build();
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
        )
        .unwrap();
    let server = conn
        .serve_rpc(basalt_rpc::RpcConfig {
            bind: ([127, 0, 0, 1], port).into(),
            ..support::loopback()
        })
        .unwrap();
    let publisher = ZkPublisher::start(
        &quorum,
        Published {
            host: "127.0.0.1".into(),
            rpc_port: server.local_addr().port(),
            master_port: server.local_addr().port(),
            start_code: u64::try_from(conn.server_start_code()).unwrap(),
            cluster_id: conn.engine().master().cluster_id.clone(),
        },
        Duration::from_secs(20),
    )
    .unwrap();
    let remote = RemoteConnection::through_zookeeper(&quorum, RemoteConfig::default()).unwrap();
    let t = remote.table("t").unwrap();
    t.put(&Put::new("r").add_column("f", "q", "found")).unwrap();
    assert_eq!(
        conn.table("t")
            .unwrap()
            .get(&Get::new("r"))
            .unwrap()
            .value(b"f", b"q"),
        Some(&b"found"[..])
    );
    // The async client finds it the same way, and reads what the blocking one wrote.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = runtime.block_on(async {
        let remote = basalt_embedded::remote::AsyncConnection::through_zookeeper(
            &quorum,
            RemoteConfig::default(),
        )
        .await
        .unwrap();
        let t = remote.table("t").unwrap();
        t.put(&Put::new("s").add_column("f", "q", "async"))
            .await
            .unwrap();
        t.get(&Get::new("r")).await.unwrap()
    });
    assert_eq!(got.value(b"f", b"q"), Some(&b"found"[..]));
    assert_eq!(
        conn.table("t")
            .unwrap()
            .get(&Get::new("s"))
            .unwrap()
            .value(b"f", b"q"),
        Some(&b"async"[..])
    );
    publisher.shutdown();
    server.shutdown();
}
