//! Replication peers (HBase's `ReplicationPeerManager`): added, changed and removed here, one
//! at a time, checked against the tables and namespaces they name, and kept where every
//! region server reads them (`basalt_regionserver::replication::peers`).

use basalt_common::replication::{PeerConfig, PeerDescription, TableCfs, check_peer_id};
use basalt_common::{Error, Result};
use basalt_regionserver::replication::peers as store;

use crate::master::Master;

/// The tables, families and namespaces a config names must exist.
fn check_names(master: &Master, config: &PeerConfig) -> Result<()> {
    let check_tables = |cfs: &TableCfs| -> Result<()> {
        for (table, families) in cfs {
            let descriptor = master.table(table)?.descriptor();
            for f in families {
                if descriptor.family(f).is_none() {
                    return Err(Error::NoSuchColumnFamily {
                        table: table.clone(),
                        family: basalt_common::bytes_display::BinaryDisplay::new(f),
                    });
                }
            }
        }
        Ok(())
    };
    check_tables(&config.table_cfs)?;
    check_tables(&config.exclude_table_cfs)?;
    let namespaces = master.namespaces();
    for ns in config.namespaces.iter().chain(&config.exclude_namespaces) {
        if !namespaces.contains_key(ns) {
            return Err(Error::NamespaceNotFound(ns.clone()));
        }
    }
    Ok(())
}

/// Peer changes must be switched on (HBase's `peer_modification_switch`).
fn check_modifiable(master: &Master) -> Result<()> {
    if store::modification_enabled(master.fs.as_ref(), &master.root)? {
        Ok(())
    } else {
        Err(Error::Refused(
            "Replication peer modification disabled".into(),
        ))
    }
}

/// Switches peer changes on or off; returns whether they were on.
pub fn set_modification_enabled(master: &Master, on: bool) -> Result<bool> {
    let _ddl = master.ddl();
    store::set_modification_enabled(master.fs.as_ref(), &master.root, on)
}

pub fn modification_enabled(master: &Master) -> Result<bool> {
    store::modification_enabled(master.fs.as_ref(), &master.root)
}

fn existing(master: &Master, id: &str) -> Result<PeerDescription> {
    store::read(master.fs.as_ref(), &master.root, id)?
        .ok_or_else(|| Error::ReplicationPeerNotFound(id.to_owned()))
}

/// Adds peer `id`.
pub fn add(master: &Master, id: &str, config: PeerConfig, enabled: bool) -> Result<()> {
    check_peer_id(id)?;
    config.check()?;
    let _ddl = master.ddl();
    check_modifiable(master)?;
    check_names(master, &config)?;
    if store::read(master.fs.as_ref(), &master.root, id)?.is_some() {
        return Err(Error::Refused(format!(
            "Replication peer {id} already exists"
        )));
    }
    store::write(
        master.fs.as_ref(),
        &master.root,
        &PeerDescription {
            id: id.to_owned(),
            enabled,
            config,
        },
    )
}

/// Removes peer `id`; its queues go as the region servers notice.
pub fn remove(master: &Master, id: &str) -> Result<()> {
    let _ddl = master.ddl();
    check_modifiable(master)?;
    existing(master, id)?;
    store::delete(master.fs.as_ref(), &master.root, id)
}

/// Starts or stops shipping to peer `id`.
pub fn set_enabled(master: &Master, id: &str, on: bool) -> Result<()> {
    let _ddl = master.ddl();
    check_modifiable(master)?;
    let mut peer = existing(master, id)?;
    peer.enabled = on;
    store::write(master.fs.as_ref(), &master.root, &peer)
}

/// Replaces peer `id`'s config. As HBase, its cluster key cannot change.
pub fn update(master: &Master, id: &str, config: PeerConfig) -> Result<()> {
    config.check()?;
    let _ddl = master.ddl();
    check_modifiable(master)?;
    check_names(master, &config)?;
    let mut peer = existing(master, id)?;
    if peer.config.cluster_key != config.cluster_key {
        return Err(Error::InvalidArgument(format!(
            "Changing the cluster key on an existing peer is not allowed. Existing key '{}' \
             for peer {id} does not match new key '{}'",
            peer.config.cluster_key, config.cluster_key
        )));
    }
    peer.config = config;
    store::write(master.fs.as_ref(), &master.root, &peer)
}

pub fn get(master: &Master, id: &str) -> Result<PeerDescription> {
    existing(master, id)
}

/// Every peer, by id.
pub fn list(master: &Master) -> Result<Vec<PeerDescription>> {
    store::read_all(master.fs.as_ref(), &master.root)
}
