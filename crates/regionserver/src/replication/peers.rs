//! Where peers are kept: one file per peer, `<root>/peers/<id>`, holding `PBUF` and HBase's
//! `ReplicationPeerDescription` (HBase 3's FSReplicationPeerStorage keeps them under the root
//! directory the same way). The master writes them; every region server of the cluster
//! shares the root and reads them (`docs/design/replication.md`).

use std::path::{Path, PathBuf};

use basalt_common::replication::PeerDescription;
use basalt_common::{Error, Result};
use basalt_fs::FileSystem;
use basalt_proto::pb;
use prost::Message;

use crate::layout::storage;

/// The directory of peer files under the root.
pub const PEERS_DIR: &str = "peers";

const MAGIC: &[u8] = b"PBUF";

pub fn peers_dir(root: &Path) -> PathBuf {
    root.join(PEERS_DIR)
}

fn decode(path: &Path, bytes: &[u8]) -> Result<PeerDescription> {
    let corrupt = |why: String| Error::corrupt(format!("peer file {}: {why}", path.display()));
    let body = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| corrupt("it does not start with PBUF".into()))?;
    let d = pb::ReplicationPeerDescription::decode(body).map_err(|e| corrupt(e.to_string()))?;
    basalt_proto::replication::description(&d).map_err(|e| corrupt(e.to_string()))
}

/// Every peer, by id.
pub fn read_all(fs: &dyn FileSystem, root: &Path) -> Result<Vec<PeerDescription>> {
    let dir = peers_dir(root);
    if !fs.exists(&dir).map_err(storage)? {
        return Ok(Vec::new());
    }
    let mut names = fs.list(&dir).map_err(storage)?;
    // Peer ids never start with a dot: such names are the switch's, or temporary files.
    names.retain(|n| !n.contains(".tmp") && !n.starts_with('.'));
    names.sort();
    names
        .iter()
        .map(|n| {
            let path = dir.join(n);
            let bytes = basalt_fs::read_all(fs, &path).map_err(storage)?;
            decode(&path, &bytes)
        })
        .collect()
}

/// Peer `id`, if there is one.
pub fn read(fs: &dyn FileSystem, root: &Path, id: &str) -> Result<Option<PeerDescription>> {
    let path = peers_dir(root).join(id);
    if !fs.exists(&path).map_err(storage)? {
        return Ok(None);
    }
    let bytes = basalt_fs::read_all(fs, &path).map_err(storage)?;
    decode(&path, &bytes).map(Some)
}

/// Writes (or replaces) a peer's file, durably.
pub fn write(fs: &dyn FileSystem, root: &Path, peer: &PeerDescription) -> Result<()> {
    let dir = peers_dir(root);
    fs.create_dir_all(&dir).map_err(storage)?;
    let mut bytes = MAGIC.to_vec();
    basalt_proto::replication::pb_description(peer)
        .encode(&mut bytes)
        .map_err(|e| Error::storage(format!("encoding peer {}: {e}", peer.id)))?;
    basalt_fs::write_atomically(fs, &dir.join(&peer.id), &bytes).map_err(storage)
}

/// Deletes a peer's file.
pub fn delete(fs: &dyn FileSystem, root: &Path, id: &str) -> Result<()> {
    let dir = peers_dir(root);
    fs.delete(&dir.join(id)).map_err(storage)?;
    fs.sync_dir(&dir).map_err(storage)
}

/// The file whose presence switches peer changes off (HBase's `peer_modification_switch`).
const MODIFICATION_OFF: &str = ".modification-off";

/// Whether peers may be added, changed and removed.
pub fn modification_enabled(fs: &dyn FileSystem, root: &Path) -> Result<bool> {
    Ok(!fs
        .exists(&peers_dir(root).join(MODIFICATION_OFF))
        .map_err(storage)?)
}

/// Switches peer changes on or off; returns whether they were on.
pub fn set_modification_enabled(fs: &dyn FileSystem, root: &Path, on: bool) -> Result<bool> {
    let was = modification_enabled(fs, root)?;
    let dir = peers_dir(root);
    let path = dir.join(MODIFICATION_OFF);
    if on && !was {
        fs.delete(&path).map_err(storage)?;
        fs.sync_dir(&dir).map_err(storage)?;
    } else if !on && was {
        fs.create_dir_all(&dir).map_err(storage)?;
        basalt_fs::write_atomically(fs, &path, b"off").map_err(storage)?;
    }
    Ok(was)
}
