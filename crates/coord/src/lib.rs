//! Coordination through ZooKeeper (HBase's `ZKWatcher` and friends): sessions
//! ([`ZkSession`]), the znodes a cluster keeps as HBase keeps them (`/hbase/master`,
//! `/hbase/backup-masters/`, `/hbase/rs/<server>` (ephemeral: they vanish with the session if
//! the process dies), `/hbase/meta-region-server`, `/hbase/hbaseid`, `/hbase/balancer`), a
//! standalone server's publication ([`ZkPublisher`]), and finding meta and the master there as
//! clients do. Each znode's data is HBase's framing: `0xFF`, a 4-byte big-endian id length, the
//! id (`pid@host`), `PBUF`, the protobuf (`docs/design/cluster.md`).
//!
//! The ZooKeeper client is asynchronous; each session runs it on a one-thread runtime of its
//! own, the only async code in the server.

mod dump;
mod session;

pub use dump::dump;
pub use session::{NodeKind, ZkSession};

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use prost::Message;

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

/// HBase's server name: `host,port,startcode`.
pub fn server_name(host: &str, port: u16, start_code: u64) -> String {
    format!("{host},{port},{start_code}")
}

/// A live publication; [`ZkPublisher::shutdown`] removes it.
#[derive(Debug)]
pub struct ZkPublisher {
    session: ZkSession,
    nodes: Vec<String>,
}

/// The znode naming the server of `hbase:meta`.
pub const META_NODE: &str = "/hbase/meta-region-server";

fn err(what: &str, e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("zookeeper: {what}: {e}"))
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
/// The split and merge switches: `/hbase/switch/split` and `/hbase/switch/merge`, there while
/// the switch is off.
pub const SWITCH_DIR: &str = "/hbase/switch";
/// Region servers out of service (HBase's draining servers): `/hbase/draining/<server name>`.
pub const DRAINING_DIR: &str = "/hbase/draining";
/// The grants in force in a cluster with access control on, as the active master last put
/// them (its copy of `hbase:acl`): region servers read them from here.
pub const ACL_NODE: &str = "/hbase/acl";
/// What region servers need to enforce quotas (throttles, switches, tables over their space
/// quota), as the active master last worked it out: Basalt's QuotaState message.
pub const QUOTA_NODE: &str = "/hbase/quota";

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

/// `/hbase/acl`'s data: every grant, as a `GetUserPermissionsResponse` (HBase's
/// `UserPermission` messages) in HBase's framing.
pub fn acl_data(host: &str, grants: &[basalt_common::acl::Permission]) -> Vec<u8> {
    frame(
        &node_id(host),
        &pb::GetUserPermissionsResponse {
            user_permission: grants
                .iter()
                .map(basalt_proto::acl::user_permission)
                .collect(),
        },
    )
}

/// The grants `/hbase/acl`'s data holds; an error says what is wrong with it.
pub fn read_acl(data: &[u8]) -> Result<Vec<basalt_common::acl::Permission>, String> {
    let body = unframe(data).ok_or("/hbase/acl is not in HBase's znode framing")?;
    let list = pb::GetUserPermissionsResponse::decode(body)
        .map_err(|e| format!("/hbase/acl does not decode: {e}"))?;
    list.user_permission
        .iter()
        .map(basalt_proto::acl::permission_of)
        .collect()
}

/// `/hbase/quota`'s data.
pub fn quota_data(host: &str, state: &basalt_common::quota::QuotaState) -> Vec<u8> {
    frame(&node_id(host), &basalt_proto::quota::state_pb(state))
}

/// The quota state `/hbase/quota`'s data holds; an error says what is wrong with it.
pub fn read_quota(data: &[u8]) -> Result<basalt_common::quota::QuotaState, String> {
    let body = unframe(data).ok_or("/hbase/quota is not in HBase's znode framing")?;
    let message =
        pb::QuotaState::decode(body).map_err(|e| format!("/hbase/quota does not decode: {e}"))?;
    basalt_proto::quota::state_of(message).map_err(|e| format!("/hbase/quota: {e}"))
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

/// Reads one node of the ZooKeeper at `quorum` with a session of its own: what a client
/// looks up once. Fails naming the node if it is missing.
fn read_node(quorum: &str, path: &str, timeout: Duration) -> io::Result<Vec<u8>> {
    let session = ZkSession::connect(quorum, Duration::from_secs(10), timeout)?;
    let data = session.get(path)?;
    session.close();
    data.ok_or_else(|| err(&format!("reading {path}"), "node not exists"))
}

/// The address of the server a master or meta znode names.
fn server_at(quorum: &str, path: &str, meta: bool, timeout: Duration) -> io::Result<SocketAddr> {
    let data = read_node(quorum, path, timeout)?;
    let (host, port, _) = read_server(&data, meta)
        .ok_or_else(|| err(&format!("reading {path}"), "not in HBase's framing"))?;
    (host.as_str(), port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| err(&format!("resolving {host}"), "no address"))
}

/// Where `hbase:meta` is served, as `/hbase/meta-region-server` in the ZooKeeper at `quorum`
/// says: how HBase's clients find a cluster. Fails with the reason if ZooKeeper cannot be
/// reached within `timeout`, or the node is missing or not in HBase's framing.
pub fn meta_server(quorum: &str, timeout: Duration) -> io::Result<SocketAddr> {
    server_at(quorum, META_NODE, true, timeout)
}

/// Where the active master serves, as `/hbase/master` in the ZooKeeper at `quorum` says.
pub fn master_server(quorum: &str, timeout: Duration) -> io::Result<SocketAddr> {
    server_at(quorum, MASTER_NODE, false, timeout)
        .map_err(|e| io::Error::other(format!("{e} (no active master?)")))
}

impl ZkPublisher {
    /// Connects to `quorum` (`host:port`), publishes `p` (a standalone server, as HBase's
    /// clients look for one), and keeps the session alive until shutdown. Fails if ZooKeeper
    /// cannot be reached within `timeout`.
    pub fn start(quorum: &str, p: Published, timeout: Duration) -> io::Result<ZkPublisher> {
        let session = ZkSession::connect(quorum, Duration::from_secs(10), timeout)?;
        let rs = format!(
            "{RS_DIR}/{}",
            server_name(&p.host, p.rpc_port, p.start_code)
        );
        let publish = || -> io::Result<()> {
            session.ensure(RS_DIR)?;
            session.put(
                CLUSTER_ID_NODE,
                &cluster_id_data(&p.host, &p.cluster_id),
                NodeKind::Persistent,
            )?;
            session.put(
                META_NODE,
                &meta_data(&p.host, p.rpc_port, p.start_code),
                NodeKind::Persistent,
            )?;
            session.put(&rs, b"", NodeKind::Ephemeral)?;
            session.put(
                MASTER_NODE,
                &master_data(&p.host, p.master_port, p.start_code),
                NodeKind::Ephemeral,
            )
        };
        publish().map_err(|e| err("publishing", e))?;
        Ok(ZkPublisher {
            nodes: vec![MASTER_NODE.to_owned(), rs, META_NODE.to_owned()],
            session,
        })
    }

    /// Removes the znodes and closes the session.
    pub fn shutdown(self) {
        for node in &self.nodes {
            let _ = self.session.delete(node);
        }
        self.session.close();
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
