//! Replication peers in HBase's protobuf forms (`ReplicationPeer`,
//! `ReplicationPeerDescription`), both ways: the MasterService calls carry them, and the
//! master keeps each peer as one (`docs/design/replication.md`).

use basalt_common::replication::{PeerConfig, PeerDescription, TableCfs};
use basalt_common::{Bytes, Error, Result, TableName};

use crate::pb::{self, replication_state::State};
use crate::schema::{name_string_pairs, pb_table_name};

fn pb_table_cfs(cfs: &TableCfs) -> Vec<pb::TableCf> {
    cfs.iter()
        .map(|(table, families)| pb::TableCf {
            table_name: Some(pb_table_name(table)),
            families: families.iter().map(|f| f.to_vec()).collect(),
        })
        .collect()
}

fn read_table_cfs(cfs: &[pb::TableCf]) -> Result<TableCfs> {
    let mut out = TableCfs::new();
    for cf in cfs {
        let t = cf
            .table_name
            .as_ref()
            .ok_or_else(|| Error::InvalidArgument("a TableCF without its table".into()))?;
        let table = TableName::new(
            &String::from_utf8_lossy(&t.namespace),
            &String::from_utf8_lossy(&t.qualifier),
        )?;
        out.entry(table)
            .or_default()
            .extend(cf.families.iter().map(|f| Bytes::copy_from_slice(f)));
    }
    Ok(out)
}

fn utf8_set(names: &[Vec<u8>]) -> std::collections::BTreeSet<String> {
    names
        .iter()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect()
}

/// A peer's config as HBase's `ReplicationPeer`.
pub fn pb_peer(c: &PeerConfig) -> pb::ReplicationPeer {
    pb::ReplicationPeer {
        clusterkey: c.cluster_key.clone(),
        replication_endpoint_impl: c.endpoint.clone(),
        data: c
            .data
            .iter()
            .map(|(k, v)| pb::BytesBytesPair {
                first: k.to_vec(),
                second: v.to_vec(),
            })
            .collect(),
        configuration: name_string_pairs(&c.configuration),
        table_cfs: pb_table_cfs(&c.table_cfs),
        namespaces: c.namespaces.iter().map(|n| n.as_bytes().to_vec()).collect(),
        bandwidth: Some(i64::try_from(c.bandwidth).unwrap_or(i64::MAX)),
        replicate_all: Some(c.replicate_all),
        exclude_table_cfs: pb_table_cfs(&c.exclude_table_cfs),
        exclude_namespaces: c
            .exclude_namespaces
            .iter()
            .map(|n| n.as_bytes().to_vec())
            .collect(),
        serial: Some(c.serial),
        remote_wal_dir: None,
    }
}

/// A peer's config from HBase's `ReplicationPeer`. As HBase's client reads it, a config
/// without `replicate_all` replicates all tables unless it names tables or namespaces.
pub fn peer(p: &pb::ReplicationPeer) -> Result<PeerConfig> {
    if p.remote_wal_dir.is_some() {
        return Err(Error::InvalidArgument(
            "remoteWALDir: synchronous replication is not supported by Basalt".into(),
        ));
    }
    let table_cfs = read_table_cfs(&p.table_cfs)?;
    let namespaces = utf8_set(&p.namespaces);
    let replicate_all = p
        .replicate_all
        .unwrap_or(table_cfs.is_empty() && namespaces.is_empty());
    let bandwidth = p.bandwidth.unwrap_or(0);
    Ok(PeerConfig {
        cluster_key: p.clusterkey.clone(),
        endpoint: p
            .replication_endpoint_impl
            .clone()
            .filter(|e| !e.is_empty()),
        data: p
            .data
            .iter()
            .map(|d| {
                (
                    Bytes::copy_from_slice(&d.first),
                    Bytes::copy_from_slice(&d.second),
                )
            })
            .collect(),
        configuration: p
            .configuration
            .iter()
            .map(|c| (c.name.clone(), c.value.clone()))
            .collect(),
        replicate_all,
        table_cfs,
        namespaces,
        exclude_table_cfs: read_table_cfs(&p.exclude_table_cfs)?,
        exclude_namespaces: utf8_set(&p.exclude_namespaces),
        bandwidth: u64::try_from(bandwidth)
            .map_err(|_| Error::InvalidArgument(format!("bandwidth {bandwidth} is negative")))?,
        serial: p.serial.unwrap_or(false),
    })
}

pub fn pb_state(enabled: bool) -> pb::ReplicationState {
    pb::ReplicationState {
        state: if enabled {
            State::Enabled
        } else {
            State::Disabled
        } as i32,
    }
}

pub fn pb_description(d: &PeerDescription) -> pb::ReplicationPeerDescription {
    pb::ReplicationPeerDescription {
        id: d.id.clone(),
        state: pb_state(d.enabled),
        config: pb_peer(&d.config),
    }
}

pub fn description(d: &pb::ReplicationPeerDescription) -> Result<PeerDescription> {
    Ok(PeerDescription {
        id: d.id.clone(),
        enabled: d.state.state == State::Enabled as i32,
        config: peer(&d.config)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_goes_to_protobuf_and_back_whole() {
        let mut c = PeerConfig::new("zk1,zk2:2181:/hbase");
        c.replicate_all = false;
        c.namespaces.insert("ns".into());
        c.table_cfs.insert(
            TableName::parse("t").unwrap(),
            [Bytes::from_static(b"f")].into(),
        );
        c.bandwidth = 1 << 20;
        c.serial = true;
        c.configuration.insert("k".into(), "v".into());
        c.data
            .insert(Bytes::from_static(b"d"), Bytes::from_static(b"x"));
        let d = PeerDescription {
            id: "1".into(),
            enabled: false,
            config: c,
        };
        assert_eq!(description(&pb_description(&d)).unwrap(), d);
    }
}
