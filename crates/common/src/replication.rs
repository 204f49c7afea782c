//! Replication peers, as HBase's `ReplicationPeerConfig` describes them: where a peer cluster
//! is (its cluster key), which tables, families and namespaces go there, at what bandwidth,
//! and whether in order (serial). The checks HBase's `ReplicationPeerManager` makes of a
//! config are here, and the rule that decides whether a family's edits go to a peer.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::table_name::TableName;

/// The znode under which clusters keep their servers (HBase's default `zookeeper.znode.parent`,
/// the only one Basalt's servers use).
pub const ZNODE_PARENT: &str = "/hbase";

/// Families of tables, as a peer's TABLE_CFS and EXCLUDE_TABLE_CFS name them: no family
/// means the whole table.
pub type TableCfs = BTreeMap<TableName, BTreeSet<Bytes>>;

/// Where a peer cluster is, as its cluster key says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClusterKey {
    /// Its ZooKeeper: `host1,host2:2181:/hbase` (HBase's form), or
    /// `hbase+zk://host1:2181,host2:2181/hbase` (HBase 2.6's connection URI). `quorum` is
    /// `host:port` pairs joined by commas.
    ZooKeeper { quorum: String, znode: String },
    /// Its servers' native RPC, with no ZooKeeper: `hbase+rpc://host:port[,host:port]` (a
    /// standalone server, or a cluster's masters).
    Rpc { servers: Vec<String> },
}

fn bad_key(key: &str, why: &str) -> Error {
    Error::InvalidArgument(format!(
        "Bad format for cluster key {key:?}: {why} (expected \
         zk_host[,zk_host]:port:/znode, hbase+zk://host:port/znode or hbase+rpc://host:port)"
    ))
}

/// A `host:port` with a port that is a number.
fn host_port(key: &str, s: &str) -> Result<String> {
    match s.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(s.to_owned()),
        _ => Err(bad_key(key, &format!("{s:?} is not host:port"))),
    }
}

impl ClusterKey {
    pub fn parse(key: &str) -> Result<ClusterKey> {
        let key = key.trim();
        if let Some(rest) = key.strip_prefix("hbase+rpc://") {
            let servers = rest
                .trim_end_matches('/')
                .split(',')
                .map(|s| host_port(key, s))
                .collect::<Result<Vec<_>>>()?;
            return Ok(ClusterKey::Rpc { servers });
        }
        if let Some(rest) = key.strip_prefix("hbase+zk://") {
            let (quorum, znode) = match rest.split_once('/') {
                Some((q, z)) => (q, z.trim_end_matches('/')),
                None => (rest, ""),
            };
            let znode = if znode.is_empty() {
                "/hbase".to_owned()
            } else {
                format!("/{znode}")
            };
            let quorum = quorum
                .split(',')
                .map(|s| host_port(key, s))
                .collect::<Result<Vec<_>>>()?
                .join(",");
            return Ok(ClusterKey::ZooKeeper { quorum, znode });
        }
        if key.contains("://") {
            return Err(bad_key(key, "unknown scheme"));
        }
        let parts: Vec<&str> = key.split(':').collect();
        let [hosts, port, znode] = parts[..] else {
            return Err(bad_key(key, "it has not three parts separated by ':'"));
        };
        if hosts.is_empty() || hosts.split(',').any(str::is_empty) {
            return Err(bad_key(key, "no ZooKeeper host"));
        }
        if port.parse::<u16>().is_err() {
            return Err(bad_key(key, &format!("port {port:?} is not a number")));
        }
        if !znode.starts_with('/') {
            return Err(bad_key(
                key,
                &format!("znode {znode:?} does not start with '/'"),
            ));
        }
        let quorum = hosts
            .split(',')
            .map(|h| format!("{h}:{port}"))
            .collect::<Vec<_>>()
            .join(",");
        Ok(ClusterKey::ZooKeeper {
            quorum,
            znode: znode.to_owned(),
        })
    }
}

/// A cluster's id as replication carries it (HBase's UUID): edits name the clusters they have
/// passed through, so none ships back to where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClusterId(pub u128);

impl ClusterId {
    /// The id a cluster's `hbase.id` text stands for: the UUID it spells, or (an older Basalt
    /// id, `basalt-<start code>`) the MD5 of its text, so each text has one id for good.
    pub fn of(text: &str) -> ClusterId {
        let hex: String = text.chars().filter(|c| *c != '-').collect();
        if text.len() == 36
            && hex.len() == 32
            && let Ok(n) = u128::from_str_radix(&hex, 16)
        {
            return ClusterId(n);
        }
        ClusterId(u128::from_be_bytes(crate::md5::md5(text.as_bytes())))
    }

    /// HBase's UUID halves.
    pub fn most_significant(self) -> u64 {
        (self.0 >> 64) as u64
    }

    pub fn least_significant(self) -> u64 {
        self.0 as u64
    }

    pub fn from_halves(most: u64, least: u64) -> ClusterId {
        ClusterId((u128::from(most) << 64) | u128::from(least))
    }
}

impl std::fmt::Display for ClusterId {
    /// The UUID's usual text: `8-4-4-4-12` hex digits.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = format!("{:032x}", self.0);
        write!(
            f,
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        )
    }
}

/// The mutation attribute that names the clusters an edit came through (HBase's
/// `Mutation.CONSUMED_CLUSTER_IDS`): a 4-byte count, then each id's most and least
/// significant halves, big-endian.
pub const CLUSTER_IDS_ATTRIBUTE: &str = "_cs.id";

pub fn encode_cluster_ids(ids: &[ClusterId]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 16 * ids.len());
    out.extend_from_slice(&(ids.len() as u32).to_be_bytes());
    for id in ids {
        out.extend_from_slice(&id.0.to_be_bytes());
    }
    out
}

pub fn decode_cluster_ids(bytes: &[u8]) -> Result<Vec<ClusterId>> {
    let bad = || {
        Error::InvalidArgument(format!(
            "attribute {CLUSTER_IDS_ATTRIBUTE} of {} bytes is not a count and 16-byte ids",
            bytes.len()
        ))
    };
    let (count, rest) = bytes.split_first_chunk::<4>().ok_or_else(bad)?;
    let count = u32::from_be_bytes(*count) as usize;
    if rest.len() != count * 16 {
        return Err(bad());
    }
    Ok(rest
        .chunks_exact(16)
        .map(|c| ClusterId(u128::from_be_bytes(c.try_into().unwrap_or_default())))
        .collect())
}

/// A peer's configuration (HBase's `ReplicationPeerConfig`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PeerConfig {
    /// Where the peer is (see [`ClusterKey`]).
    pub cluster_key: String,
    /// A custom endpoint's class (HBase's ENDPOINT_CLASSNAME): refused, Basalt ships to
    /// HBase-compatible clusters only.
    pub endpoint: Option<String>,
    /// Free-form data and configuration, kept and shown.
    pub data: BTreeMap<Bytes, Bytes>,
    pub configuration: BTreeMap<String, String>,
    /// Every user table (but the excluded), or only the tables and namespaces named.
    pub replicate_all: bool,
    pub table_cfs: TableCfs,
    pub namespaces: BTreeSet<String>,
    pub exclude_table_cfs: TableCfs,
    pub exclude_namespaces: BTreeSet<String>,
    /// Bytes per second each source server may ship to this peer; 0 is no limit.
    pub bandwidth: u64,
    /// Each region's edits in order, across splits, merges and moves.
    pub serial: bool,
}

impl PeerConfig {
    /// A peer at `cluster_key` for every user table (HBase's default).
    pub fn new(cluster_key: impl Into<String>) -> PeerConfig {
        PeerConfig {
            cluster_key: cluster_key.into(),
            replicate_all: true,
            ..PeerConfig::default()
        }
    }

    /// The checks HBase's `ReplicationPeerManager.checkPeerConfig` makes.
    pub fn check(&self) -> Result<()> {
        if let ClusterKey::ZooKeeper { znode, .. } = ClusterKey::parse(&self.cluster_key)?
            && znode != ZNODE_PARENT
        {
            return Err(Error::InvalidArgument(format!(
                "cluster key {:?}: znode parent {znode} is not supported; Basalt finds a \
                 cluster's servers under {ZNODE_PARENT}",
                self.cluster_key
            )));
        }
        if let Some(class) = &self.endpoint {
            return Err(Error::InvalidArgument(format!(
                "ENDPOINT_CLASSNAME {class}: Basalt ships to clusters through HBase's \
                 ReplicateWALEntry only; custom replication endpoints are Java classes"
            )));
        }
        if self.replicate_all {
            if !self.namespaces.is_empty() || !self.table_cfs.is_empty() {
                return Err(Error::InvalidArgument(
                    "Need clean namespaces or table-cfs config firstly when you want replicate \
                     all cluster"
                        .into(),
                ));
            }
            check_conflict(
                &self.exclude_namespaces,
                &self.exclude_table_cfs,
                "exclude ",
            )?;
        } else {
            if !self.exclude_namespaces.is_empty() || !self.exclude_table_cfs.is_empty() {
                return Err(Error::InvalidArgument(
                    "Need clean exclude-namespaces or exclude-table-cfs config firstly when \
                     replicate_all flag is false"
                        .into(),
                ));
            }
            check_conflict(&self.namespaces, &self.table_cfs, "")?;
        }
        Ok(())
    }

    /// Whether edits of `family` of `table` go to this peer (HBase's
    /// `ReplicationPeerConfig.needToReplicate`). System tables never do.
    pub fn replicates(&self, table: &TableName, family: &[u8]) -> bool {
        if table.is_system() {
            return false;
        }
        if self.replicate_all {
            if self.exclude_namespaces.contains(table.namespace()) {
                return false;
            }
            match self.exclude_table_cfs.get(table) {
                Some(cfs) => !cfs.is_empty() && !cfs.contains(family),
                None => true,
            }
        } else {
            if self.namespaces.contains(table.namespace()) {
                return true;
            }
            match self.table_cfs.get(table) {
                Some(cfs) => cfs.is_empty() || cfs.contains(family),
                None => false,
            }
        }
    }

    /// Whether any family of `table` might go to this peer.
    pub fn replicates_table(&self, table: &TableName) -> bool {
        if table.is_system() {
            return false;
        }
        if self.replicate_all {
            !self.exclude_namespaces.contains(table.namespace())
                && self
                    .exclude_table_cfs
                    .get(table)
                    .is_none_or(|c| !c.is_empty())
        } else {
            self.namespaces.contains(table.namespace()) || self.table_cfs.contains_key(table)
        }
    }
}

/// A namespace named with one of its tables is a conflict (HBase refuses it).
fn check_conflict(namespaces: &BTreeSet<String>, tables: &TableCfs, which: &str) -> Result<()> {
    for table in tables.keys() {
        if namespaces.contains(table.namespace()) {
            return Err(Error::InvalidArgument(format!(
                "Table-cfs {table} is conflict with {which}namespaces {} in peer config",
                table.namespace()
            )));
        }
    }
    Ok(())
}

/// A peer: its id, whether it is shipped to, and its config (HBase's
/// `ReplicationPeerDescription`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerDescription {
    pub id: String,
    pub enabled: bool,
    pub config: PeerConfig,
}

/// A peer id: letters, digits, `_` and `.`; no `-`, which names claimed queues
/// (`<peer>-<dead server>`).
pub fn check_peer_id(id: &str) -> Result<()> {
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    {
        return Err(Error::InvalidArgument(format!(
            "Found invalid peer name: {id:?} (letters, digits, '_' and '.' only)"
        )));
    }
    Ok(())
}

/// Table-cfs as HBase's shell shows them: `t1;ns:t2:cf1,cf2` (tables in name order, `default`'s
/// first, each with its families after a `:`).
pub fn table_cfs_string(cfs: &TableCfs) -> String {
    let mut out = String::new();
    for (table, families) in cfs {
        if !out.is_empty() {
            out.push(';');
        }
        let _ = write!(out, "{table}");
        if !families.is_empty() {
            out.push(':');
            let names: Vec<String> = families
                .iter()
                .map(|f| String::from_utf8_lossy(f).into_owned())
                .collect();
            out.push_str(&names.join(","));
        }
    }
    out
}

/// Namespaces as HBase's shell shows them: sorted, joined by `;`.
pub fn namespaces_string(namespaces: &BTreeSet<String>) -> String {
    namespaces.iter().cloned().collect::<Vec<_>>().join(";")
}

/// `to` with the families of `add` added (HBase's `appendTableCFsToReplicationPeerConfig`):
/// a table named with no family takes the whole table.
pub fn append_table_cfs(to: &mut TableCfs, add: &TableCfs) {
    for (table, families) in add {
        match to.get_mut(table) {
            Some(have) if !have.is_empty() && !families.is_empty() => {
                have.extend(families.iter().cloned());
            }
            Some(have) => have.clear(),
            None => {
                to.insert(table.clone(), families.clone());
            }
        }
    }
}

/// `from` without the families of `remove` (HBase's `removeTableCFsFromReplicationPeerConfig`):
/// a table named with no family goes whole; a table or family that is not there is an error.
pub fn remove_table_cfs(from: &mut TableCfs, remove: &TableCfs, peer: &str) -> Result<()> {
    for (table, families) in remove {
        let Some(have) = from.get_mut(table) else {
            return Err(Error::InvalidArgument(format!(
                "Table {table} doesn't exist in table-cfs config of replication peer {peer}"
            )));
        };
        if families.is_empty() {
            if !have.is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "Cannot remove table {table} whole: the table-cfs config of replication \
                     peer {peer} names its families {}",
                    table_cfs_string(&BTreeMap::from([(table.clone(), have.clone())]))
                )));
            }
            from.remove(table);
            continue;
        }
        if have.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "Cannot remove families of table {table}: replication peer {peer} replicates \
                 the whole table"
            )));
        }
        for f in families {
            if !have.remove(f) {
                return Err(Error::InvalidArgument(format!(
                    "Column family {} of table {table} doesn't exist in table-cfs config of \
                     replication peer {peer}",
                    String::from_utf8_lossy(f)
                )));
            }
        }
        if have.is_empty() {
            from.remove(table);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> TableName {
        TableName::parse(name).unwrap()
    }

    fn cfs(entries: &[(&str, &[&str])]) -> TableCfs {
        entries
            .iter()
            .map(|(table, fams)| {
                (
                    t(table),
                    fams.iter()
                        .map(|f| Bytes::copy_from_slice(f.as_bytes()))
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn cluster_keys_in_hbases_forms_and_uris() {
        assert_eq!(
            ClusterKey::parse("zk1,zk2:2181:/hbase").unwrap(),
            ClusterKey::ZooKeeper {
                quorum: "zk1:2181,zk2:2181".into(),
                znode: "/hbase".into()
            }
        );
        assert_eq!(
            ClusterKey::parse("hbase+zk://127.0.0.1:2181/hbase-b").unwrap(),
            ClusterKey::ZooKeeper {
                quorum: "127.0.0.1:2181".into(),
                znode: "/hbase-b".into()
            }
        );
        assert_eq!(
            ClusterKey::parse("hbase+rpc://127.0.0.1:16020").unwrap(),
            ClusterKey::Rpc {
                servers: vec!["127.0.0.1:16020".into()]
            }
        );
        for bad in [
            "",
            "zk1",
            "zk1:2181",
            "zk1:port:/hbase",
            "zk1:2181:hbase",
            ":2181:/hbase",
            "hbase+rpc://host",
            "http://x:1",
        ] {
            let e = ClusterKey::parse(bad).unwrap_err().to_string();
            assert!(e.contains("Bad format for cluster key"), "{bad}: {e}");
        }
    }

    #[test]
    fn cluster_ids_as_uuids_and_as_hbases_attribute() {
        let uuid = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
        let id = ClusterId::of(uuid);
        assert_eq!(id.to_string(), uuid);
        assert_eq!(id.most_significant(), 0x0f1e_2d3c_4b5a_6978);
        assert_eq!(
            ClusterId::from_halves(id.most_significant(), id.least_significant()),
            id
        );
        let old = ClusterId::of("basalt-1700000000000");
        assert_eq!(old, ClusterId::of("basalt-1700000000000"));
        assert_ne!(old, id);
        let ids = vec![id, old];
        assert_eq!(decode_cluster_ids(&encode_cluster_ids(&ids)).unwrap(), ids);
        assert!(decode_cluster_ids(&[0, 0, 0, 1, 7]).is_err());
    }

    #[test]
    fn which_families_a_peer_takes() {
        let mut all = PeerConfig::new("zk:2181:/hbase");
        assert!(all.replicates(&t("t"), b"f"));
        assert!(!all.replicates(&t("hbase:meta"), b"info"));
        all.exclude_namespaces.insert("secret".into());
        all.exclude_table_cfs = cfs(&[("t", &["private"]), ("gone", &[])]);
        assert!(!all.replicates(&t("secret:x"), b"f"));
        assert!(!all.replicates(&t("t"), b"private"));
        assert!(all.replicates(&t("t"), b"f"));
        assert!(!all.replicates(&t("gone"), b"f"));
        assert!(!all.replicates_table(&t("gone")));
        assert!(all.replicates_table(&t("t")));

        let mut some = PeerConfig::new("zk:2181:/hbase");
        some.replicate_all = false;
        some.namespaces.insert("ns".into());
        some.table_cfs = cfs(&[("t", &["f"]), ("whole", &[])]);
        assert!(some.replicates(&t("ns:any"), b"x"));
        assert!(some.replicates(&t("t"), b"f"));
        assert!(!some.replicates(&t("t"), b"g"));
        assert!(some.replicates(&t("whole"), b"g"));
        assert!(!some.replicates(&t("other"), b"f"));
        some.check().unwrap();
    }

    #[test]
    fn configs_hbase_refuses_are_refused() {
        let mut c = PeerConfig::new("zk:2181:/hbase");
        c.table_cfs = cfs(&[("t", &[])]);
        assert!(
            c.check()
                .unwrap_err()
                .to_string()
                .contains("Need clean namespaces")
        );
        c.replicate_all = false;
        c.namespaces.insert("default".into());
        assert!(
            c.check()
                .unwrap_err()
                .to_string()
                .contains("is conflict with")
        );
        c.namespaces.clear();
        c.exclude_namespaces.insert("x".into());
        assert!(
            c.check()
                .unwrap_err()
                .to_string()
                .contains("Need clean exclude")
        );
        assert!(check_peer_id("1-2").is_err());
        assert!(check_peer_id("peer_1").is_ok());
    }

    #[test]
    fn table_cfs_show_append_and_remove_as_hbase() {
        let mut c = cfs(&[("t1", &[]), ("ns:t2", &["b", "a"])]);
        assert_eq!(table_cfs_string(&c), "t1;ns:t2:a,b");
        append_table_cfs(&mut c, &cfs(&[("ns:t2", &["c"]), ("t3", &["x"])]));
        assert_eq!(table_cfs_string(&c), "t1;t3:x;ns:t2:a,b,c");
        append_table_cfs(&mut c, &cfs(&[("t3", &[])]));
        assert_eq!(table_cfs_string(&c), "t1;t3;ns:t2:a,b,c");
        remove_table_cfs(&mut c, &cfs(&[("ns:t2", &["a", "b", "c"])]), "1").unwrap();
        assert_eq!(table_cfs_string(&c), "t1;t3");
        let e = remove_table_cfs(&mut c, &cfs(&[("nope", &[])]), "1").unwrap_err();
        assert!(e.to_string().contains("doesn't exist"), "{e}");
        let e = remove_table_cfs(&mut c, &cfs(&[("t1", &["f"])]), "1").unwrap_err();
        assert!(e.to_string().contains("whole table"), "{e}");
    }
}
