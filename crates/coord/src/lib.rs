//! Coordination through ZooKeeper (HBase's `ZKWatcher` and friends). So far: publishing the
//! server in a real ZooKeeper the way HBase does, so native clients find it:
//! `/hbase/master` and `/hbase/rs/<server>` (ephemeral: they vanish with the session if the
//! process dies), `/hbase/meta-region-server` and `/hbase/hbaseid`. Each znode's data is HBase's
//! framing: `0xFF`, a 4-byte big-endian id length, the id (`pid@host`), `PBUF`, the protobuf.
//!
//! The ZooKeeper client is asynchronous; it runs on a one-thread runtime of its own, the only
//! async code in the server.

mod session;

pub use session::{NodeKind, ZkSession};

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use prost::Message;
use zookeeper_client as zk;

use basalt_proto::pb;

/// Where this server serves, as the znodes say.
#[derive(Debug, Clone)]
pub struct Published {
    pub host: String,
    /// ClientService (the meta region's server and the region server).
    pub rpc_port: u16,
    /// MasterService.
    pub master_port: u16,
    pub start_code: u64,
    pub cluster_id: String,
}

/// HBase's znode data framing around `message`.
pub fn frame(id: &str, message: &impl Message) -> Vec<u8> {
    let mut out = vec![0xff];
    out.extend_from_slice(&u32::try_from(id.len()).unwrap_or(0).to_be_bytes());
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b"PBUF");
    message.encode(&mut out).ok();
    out
}

/// The protobuf bytes inside a framed znode, if the framing is right.
pub fn unframe(data: &[u8]) -> Option<&[u8]> {
    let rest = data.strip_prefix(&[0xff])?;
    let len = u32::from_be_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    rest.get(4 + len..)?.strip_prefix(b"PBUF")
}

/// The cluster id a standalone server publishes (`/hbase/hbaseid`) and reports in its
/// cluster status: derived from its start code.
pub fn cluster_id(start_code: i64) -> String {
    format!("basalt-{start_code}")
}

/// HBase's server name: `host,port,startcode`.
pub fn server_name(host: &str, port: u16, start_code: u64) -> String {
    format!("{host},{port},{start_code}")
}

/// A live publication; [`ZkPublisher::shutdown`] removes it.
#[derive(Debug)]
pub struct ZkPublisher {
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<()>>,
}

/// The znode naming the server of `hbase:meta`.
pub const META_NODE: &str = "/hbase/meta-region-server";

fn err(what: &str, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("zookeeper: {what}: {e}"))
}

async fn ensure(client: &zk::Client, path: &str) -> Result<(), zk::Error> {
    let opts = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    match client.create(path, b"", &opts).await {
        Ok(_) | Err(zk::Error::NodeExists) => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates `path` with `data`, replacing what a previous run may have left there.
async fn put(
    client: &zk::Client,
    path: &str,
    data: &[u8],
    mode: zk::CreateMode,
) -> Result<(), zk::Error> {
    match client.delete(path, None).await {
        Ok(()) | Err(zk::Error::NoNode) => {}
        Err(e) => return Err(e),
    }
    client
        .create(path, data, &mode.with_acls(zk::Acls::anyone_all()))
        .await
        .map(|_| ())
}

/// Where region servers register (`/hbase/rs/<host>,<port>,<start code>`, ephemeral).
pub const RS_DIR: &str = "/hbase/rs";
/// The active master (ephemeral): whoever creates it is active.
pub const MASTER_NODE: &str = "/hbase/master";
/// Masters waiting to take over (`/hbase/backup-masters/<server name>`, ephemeral).
pub const BACKUP_MASTERS_DIR: &str = "/hbase/backup-masters";
/// The cluster's id.
pub const CLUSTER_ID_NODE: &str = "/hbase/hbaseid";
/// The balancer's switch.
pub const BALANCER_NODE: &str = "/hbase/balancer";

/// `/hbase/balancer`'s data.
pub fn balancer_data(host: &str, on: bool) -> Vec<u8> {
    frame(
        &node_id(host),
        &pb::LoadBalancerState {
            balancer_on: Some(on),
        },
    )
}

/// The switch `/hbase/balancer` holds, if it is in HBase's framing.
pub fn read_balancer(data: &[u8]) -> Option<bool> {
    pb::LoadBalancerState::decode(unframe(data)?)
        .ok()?
        .balancer_on
}

/// The id HBase's znodes carry before their protobuf: `pid@host`.
fn node_id(host: &str) -> String {
    format!("{}@{host}", std::process::id())
}

fn pb_server(host: &str, port: u16, start_code: u64) -> pb::ServerName {
    pb::ServerName {
        host_name: host.to_owned(),
        port: Some(u32::from(port)),
        start_code: Some(start_code),
    }
}

/// `/hbase/master`'s data (and a backup master's): HBase's `Master` message.
pub fn master_data(host: &str, port: u16, start_code: u64) -> Vec<u8> {
    frame(
        &node_id(host),
        &pb::Master {
            master: pb_server(host, port, start_code),
            rpc_version: Some(0),
            info_port: Some(0),
        },
    )
}

/// `/hbase/meta-region-server`'s data: HBase's `MetaRegionServer` message, meta open there.
pub fn meta_data(host: &str, port: u16, start_code: u64) -> Vec<u8> {
    frame(
        &node_id(host),
        &pb::MetaRegionServer {
            server: pb_server(host, port, start_code),
            rpc_version: Some(0),
            state: Some(pb::RegionStateState::Open as i32),
        },
    )
}

/// `/hbase/hbaseid`'s data.
pub fn cluster_id_data(host: &str, cluster_id: &str) -> Vec<u8> {
    frame(
        &node_id(host),
        &pb::ClusterId {
            cluster_id: cluster_id.to_owned(),
        },
    )
}

/// The server a master or meta znode names: host, port and start code.
pub fn read_server(data: &[u8], meta: bool) -> Option<(String, u16, u64)> {
    let body = unframe(data)?;
    let server = if meta {
        pb::MetaRegionServer::decode(body).ok()?.server
    } else {
        pb::Master::decode(body).ok()?.master
    };
    Some((
        server.host_name,
        u16::try_from(server.port?).ok()?,
        server.start_code.unwrap_or(0),
    ))
}

async fn publish(client: &zk::Client, p: &Published) -> Result<(), zk::Error> {
    ensure(client, "/hbase").await?;
    ensure(client, RS_DIR).await?;
    let cluster = cluster_id_data(&p.host, &p.cluster_id);
    put(
        client,
        "/hbase/hbaseid",
        &cluster,
        zk::CreateMode::Persistent,
    )
    .await?;
    let meta = meta_data(&p.host, p.rpc_port, p.start_code);
    put(client, META_NODE, &meta, zk::CreateMode::Persistent).await?;
    let rs = format!(
        "/hbase/rs/{}",
        server_name(&p.host, p.rpc_port, p.start_code)
    );
    put(client, &rs, b"", zk::CreateMode::Ephemeral).await?;
    let master = master_data(&p.host, p.master_port, p.start_code);
    put(client, MASTER_NODE, &master, zk::CreateMode::Ephemeral).await
}

async fn unpublish(client: &zk::Client, p: &Published) {
    let rs = format!(
        "/hbase/rs/{}",
        server_name(&p.host, p.rpc_port, p.start_code)
    );
    for path in ["/hbase/master", rs.as_str(), META_NODE] {
        let _ = client.delete(path, None).await;
    }
}

/// Where `hbase:meta` is served, as `/hbase/meta-region-server` in the ZooKeeper at `quorum`
/// says: how HBase's clients find a cluster. Fails with the reason if ZooKeeper cannot be
/// reached within `timeout`, or the node is missing or not in HBase's framing.
pub fn meta_server(quorum: &str, timeout: Duration) -> io::Result<SocketAddr> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| err("runtime", e))?;
    let data = runtime.block_on(async {
        let client = tokio::time::timeout(timeout, zk::Client::connect(quorum))
            .await
            .map_err(|_| err(&format!("connecting to {quorum}"), "timed out"))?
            .map_err(|e| err(&format!("connecting to {quorum}"), e))?;
        let (data, _) = tokio::time::timeout(timeout, client.get_data(META_NODE))
            .await
            .map_err(|_| err(&format!("reading {META_NODE}"), "timed out"))?
            .map_err(|e| err(&format!("reading {META_NODE}"), e))?;
        Ok::<_, io::Error>(data)
    })?;
    let body = unframe(&data)
        .ok_or_else(|| err(&format!("reading {META_NODE}"), "not in HBase's framing"))?;
    let meta =
        pb::MetaRegionServer::decode(body).map_err(|e| err(&format!("decoding {META_NODE}"), e))?;
    let port = meta
        .server
        .port
        .and_then(|p| u16::try_from(p).ok())
        .ok_or_else(|| err(&format!("reading {META_NODE}"), "no port"))?;
    (meta.server.host_name.as_str(), port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| {
            err(
                &format!("resolving {}", meta.server.host_name),
                "no address",
            )
        })
}

/// Where the active master serves, as `/hbase/master` in the ZooKeeper at `quorum` says.
pub fn master_server(quorum: &str, timeout: Duration) -> io::Result<SocketAddr> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| err("runtime", e))?;
    let data = runtime.block_on(async {
        let client = tokio::time::timeout(timeout, zk::Client::connect(quorum))
            .await
            .map_err(|_| err(&format!("connecting to {quorum}"), "timed out"))?
            .map_err(|e| err(&format!("connecting to {quorum}"), e))?;
        let (data, _) = tokio::time::timeout(timeout, client.get_data(MASTER_NODE))
            .await
            .map_err(|_| err(&format!("reading {MASTER_NODE}"), "timed out"))?
            .map_err(|e| err(&format!("reading {MASTER_NODE} (no active master?)"), e))?;
        Ok::<_, io::Error>(data)
    })?;
    let (host, port, _) = read_server(&data, false)
        .ok_or_else(|| err(&format!("reading {MASTER_NODE}"), "not in HBase's framing"))?;
    (host.as_str(), port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| err(&format!("resolving {host}"), "no address"))
}

impl ZkPublisher {
    /// Connects to `quorum` (`host:port`), publishes `p`, and keeps the session alive until
    /// shutdown. Fails if ZooKeeper cannot be reached within `timeout`.
    pub fn start(quorum: &str, p: Published, timeout: Duration) -> io::Result<ZkPublisher> {
        let (ready_tx, ready_rx) = mpsc::channel::<io::Result<()>>();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let quorum = quorum.to_owned();
        let thread = std::thread::Builder::new()
            .name("zookeeper".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(err("runtime", e)));
                        return;
                    }
                };
                runtime.block_on(async move {
                    let connect = zk::Client::connector()
                        .with_session_timeout(Duration::from_secs(10))
                        .connect(&quorum);
                    let client = match tokio::time::timeout(timeout, connect).await {
                        Ok(Ok(c)) => c,
                        Ok(Err(e)) => {
                            let _ = ready_tx.send(Err(err(&format!("connecting to {quorum}"), e)));
                            return;
                        }
                        Err(_) => {
                            let _ = ready_tx
                                .send(Err(err(&format!("connecting to {quorum}"), "timed out")));
                            return;
                        }
                    };
                    if let Err(e) = publish(&client, &p).await {
                        let _ = ready_tx.send(Err(err("publishing", e)));
                        return;
                    }
                    let _ = ready_tx.send(Ok(()));
                    // The session stays open (the client pings it) until asked to stop.
                    while let Err(mpsc::TryRecvError::Empty) = stop_rx.try_recv() {
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                    unpublish(&client, &p).await;
                });
            })?;
        match ready_rx.recv_timeout(timeout + Duration::from_secs(5)) {
            Ok(Ok(())) => Ok(ZkPublisher {
                stop: stop_tx,
                thread: Some(thread),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(err("publishing", "no answer")),
        }
    }

    /// Removes the znodes and closes the session.
    pub fn shutdown(mut self) {
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framing_round_trips() {
        let m = pb::ClusterId {
            cluster_id: "abc".into(),
        };
        let data = frame("12@host", &m);
        assert_eq!(data[0], 0xff);
        assert_eq!(&data[1..5], &7u32.to_be_bytes());
        let inner = unframe(&data).expect("framed");
        assert_eq!(pb::ClusterId::decode(inner).expect("decodes"), m);
        assert!(unframe(b"PBUF").is_none());
        assert!(unframe(&[0xff, 0, 0, 0, 9, 1]).is_none());
    }
}
