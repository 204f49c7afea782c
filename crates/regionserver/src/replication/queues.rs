//! Replication queues (HBase's `ReplicationQueueStorage`): how far each peer's edits have
//! shipped from each server's WAL. A queue is one file, `<root>/replication/rs/<server>/<queue>`,
//! holding `PBUF` and a `ReplicationQueueState`: the peer, the server whose segments it ships,
//! and the segment and offset shipped up to. Its own queue of peer `p` is named `p`; a queue
//! claimed from a dead server `s` is named `p-s`, as HBase names them. Positions are rewritten
//! (atomically) after each shipped batch; a stale one only ships edits again, which the sink
//! applies harmlessly. A WAL segment stays while any queue still needs it
//! (`docs/design/replication.md`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use basalt_common::{Error, Result};
use basalt_fs::{FileSystem, FsError};
use basalt_proto::pb;
use prost::Message;

use crate::layout::{OLD_WAL_DIR, WAL_DIR, storage};

const MAGIC: &[u8] = b"PBUF";

/// Where queues live under the root.
pub const QUEUES_DIR: &str = "replication/rs";

/// The suffix of a fenced server's WAL directory while the master splits it.
const SPLITTING: &str = "-splitting";

/// How far a queue has shipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queue {
    pub peer: String,
    /// The server whose segments it ships.
    pub source: String,
    /// The segment (file name, `wal.<n>`) shipped up to, and the offset of the next record;
    /// None: from the source's oldest segment.
    pub wal: Option<String>,
    pub offset: u64,
}

pub fn queues_dir(root: &Path, server: &str) -> PathBuf {
    root.join(QUEUES_DIR).join(server)
}

fn decode(path: &Path, bytes: &[u8]) -> Result<Queue> {
    let corrupt = |why: String| Error::corrupt(format!("queue file {}: {why}", path.display()));
    let body = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| corrupt("it does not start with PBUF".into()))?;
    let q = pb::ReplicationQueueState::decode(body).map_err(|e| corrupt(e.to_string()))?;
    Ok(Queue {
        peer: q.peer_id,
        source: q.source_server,
        wal: q.wal,
        offset: q.position.unwrap_or(0),
    })
}

pub fn read(fs: &dyn FileSystem, path: &Path) -> Result<Queue> {
    let bytes = basalt_fs::read_all(fs, path).map_err(storage)?;
    decode(path, &bytes)
}

/// Writes a queue's file, replacing it whole. Not synced: a position lost in a crash only
/// ships some edits again.
pub fn write(fs: &dyn FileSystem, path: &Path, q: &Queue) -> Result<()> {
    let mut bytes = MAGIC.to_vec();
    pb::ReplicationQueueState {
        peer_id: q.peer.clone(),
        source_server: q.source.clone(),
        wal: q.wal.clone(),
        position: Some(q.offset),
    }
    .encode(&mut bytes)
    .map_err(|e| Error::storage(format!("encoding queue {}: {e}", path.display())))?;
    if let Some(dir) = path.parent() {
        fs.create_dir_all(dir).map_err(storage)?;
    }
    // `<name>.tmp` (not `with_extension`: queue names hold dots, and two queues must never
    // share a temporary file).
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let mut w = fs.create(&tmp).or_else(|e| match e {
        FsError::AlreadyExists(_) => {
            fs.delete(&tmp)?;
            fs.create(&tmp)
        }
        e => Err(e),
    });
    let w = w.as_mut().map_err(|e| Error::storage(e.to_string()))?;
    w.append(&bytes).map_err(storage)?;
    w.flush().map_err(storage)?;
    fs.rename(&tmp, path).map_err(storage)
}

/// The queues a server holds, by queue name.
pub fn list(fs: &dyn FileSystem, root: &Path, server: &str) -> Result<Vec<(String, Queue)>> {
    let dir = queues_dir(root, server);
    if !fs.exists(&dir).map_err(storage)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in fs.list(&dir).map_err(storage)? {
        if name.ends_with(".tmp") {
            continue;
        }
        let path = dir.join(&name);
        match read(fs, &path) {
            Ok(q) => out.push((name, q)),
            // Claimed away or removed meanwhile.
            Err(_) if !fs.exists(&path).unwrap_or(true) => {}
            Err(e) => return Err(e),
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// The servers holding queues.
pub fn servers(fs: &dyn FileSystem, root: &Path) -> Result<Vec<String>> {
    let dir = root.join(QUEUES_DIR);
    if !fs.exists(&dir).map_err(storage)? {
        return Ok(Vec::new());
    }
    fs.list(&dir).map_err(storage)
}

/// Whether server `name` has gone for good: its WAL directory is gone or renamed for
/// splitting (a live server always has `WALs/<name>`, made before any queue of its own).
pub fn is_gone(fs: &dyn FileSystem, root: &Path, name: &str) -> Result<bool> {
    Ok(!fs.exists(&root.join(WAL_DIR).join(name)).map_err(storage)?)
}

/// Takes over the queues of gone server `dead` (HBase's ClaimReplicationQueues): each file
/// moves into `me`'s directory as `<queue>-<dead>`. A rename is atomic, so of several servers
/// claiming at once each queue goes to one. Returns the new names.
pub fn claim(fs: &dyn FileSystem, root: &Path, me: &str, dead: &str) -> Result<Vec<String>> {
    let from = queues_dir(root, dead);
    let to = queues_dir(root, me);
    fs.create_dir_all(&to).map_err(storage)?;
    let mut claimed = Vec::new();
    for name in fs.list(&from).unwrap_or_default() {
        if name.ends_with(".tmp") {
            let _ = fs.delete(&from.join(&name));
            continue;
        }
        let new_name = format!("{name}-{dead}");
        match fs.rename(&from.join(&name), &to.join(&new_name)) {
            Ok(()) => claimed.push(new_name),
            Err(FsError::NotFound(_)) => {}
            Err(e) => return Err(storage(e)),
        }
    }
    if fs.list(&from).map(|l| l.is_empty()).unwrap_or(false) {
        let _ = fs.delete_dir_all(&from);
    }
    fs.sync_dir(&to).map_err(storage)?;
    Ok(claimed)
}

/// A WAL segment of some server, where it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub name: String,
    pub path: PathBuf,
}

/// Server `server`'s segments, oldest first, wherever they are: its WAL directory, the same
/// renamed for splitting, or the archive.
pub fn segments_of(fs: &dyn FileSystem, root: &Path, server: &str) -> Result<Vec<Segment>> {
    let dirs = [
        root.join(WAL_DIR).join(server),
        root.join(WAL_DIR).join(format!("{server}{SPLITTING}")),
        root.join(OLD_WAL_DIR).join(server),
    ];
    let mut found: HashMap<String, PathBuf> = HashMap::new();
    for dir in dirs {
        for path in basalt_wal::segments_in(fs, &dir).map_err(|e| Error::storage(e.to_string()))? {
            if let Some(name) = path.file_name().and_then(|n| n.to_str()) {
                found.entry(name.to_owned()).or_insert(path.clone());
            }
        }
    }
    let mut out: Vec<Segment> = found
        .into_iter()
        .map(|(name, path)| Segment { name, path })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// For each server whose segments some queue still needs, the oldest segment needed (a
/// queue with no segment yet needs them all: the empty name). Segments of that server named
/// from there on stay.
pub fn needed(fs: &dyn FileSystem, root: &Path) -> Result<HashMap<String, String>> {
    let mut out: HashMap<String, String> = HashMap::new();
    for server in servers(fs, root)? {
        for (_, q) in list(fs, root, &server)? {
            let from = q.wal.unwrap_or_default();
            out.entry(q.source)
                .and_modify(|have| {
                    if from < *have {
                        *have = from.clone();
                    }
                })
                .or_insert(from);
        }
    }
    Ok(out)
}

/// Whether the segment at `path` (in `<server>/` of the WALs or archive directory) is still
/// needed by a queue, by [`needed`]'s answer.
pub fn is_needed(needed: &HashMap<String, String>, path: &Path) -> bool {
    let (Some(name), Some(server)) = (
        path.file_name().and_then(|n| n.to_str()),
        path.parent()
            .and_then(|d| d.file_name())
            .and_then(|n| n.to_str()),
    ) else {
        return false;
    };
    let server = server.strip_suffix(SPLITTING).unwrap_or(server);
    needed.get(server).is_some_and(|from| name >= from.as_str())
}

/// Once no queue needs gone server `server`'s segments any more, deletes those kept for
/// replication in the archive (`oldWALs/<server>/`).
pub fn release_gone(fs: &dyn FileSystem, root: &Path, server: &str) -> Result<()> {
    if needed(fs, root)?.contains_key(server) {
        return Ok(());
    }
    let dir = root.join(OLD_WAL_DIR).join(server);
    if fs.exists(&dir).map_err(storage)? {
        fs.delete_dir_all(&dir).map_err(storage)?;
    }
    Ok(())
}

/// Keeps a gone server's split segments for the queues that still need them: moves them from
/// `dir` (its WAL directory, renamed for splitting) to `oldWALs/<server>/`. Returns whether
/// any queue needs them (if none, the caller deletes them as before).
pub fn keep_split_segments(
    fs: &dyn FileSystem,
    root: &Path,
    server: &str,
    dir: &Path,
) -> Result<bool> {
    if !needed(fs, root)?.contains_key(server) {
        return Ok(false);
    }
    let to = root.join(OLD_WAL_DIR).join(server);
    fs.create_dir_all(&to).map_err(storage)?;
    for path in basalt_wal::segments_in(fs, dir).map_err(|e| Error::storage(e.to_string()))? {
        if let Some(name) = path.file_name() {
            fs.rename(&path, &to.join(name)).map_err(storage)?;
        }
    }
    fs.sync_dir(&to).map_err(storage)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(peer: &str, source: &str, wal: &str, offset: u64) -> Queue {
        Queue {
            peer: peer.into(),
            source: source.into(),
            wal: Some(wal.into()),
            offset,
        }
    }

    #[test]
    fn queues_claims_and_what_they_keep() {
        let fs = basalt_fs::MemFs::new();
        let root = Path::new("/r");
        let me = "127.0.0.1,16020,1";
        let dead = "127.0.0.2,16020,1";
        // Names with dots: each queue has a temporary file of its own.
        let mine = queues_dir(root, me);
        write(
            &fs,
            &mine.join("p-127.0.0.3,1,1"),
            &q("p", "127.0.0.3,1,1", "wal.5", 1),
        )
        .unwrap();
        write(
            &fs,
            &mine.join("p-127.0.0.4,1,1"),
            &q("p", "127.0.0.4,1,1", "wal.7", 2),
        )
        .unwrap();
        write(
            &fs,
            &queues_dir(root, dead).join("p"),
            &q("p", dead, "wal.3", 9),
        )
        .unwrap();
        let listed = list(&fs, root, me).unwrap();
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].1.wal.as_deref(), Some("wal.5"));
        assert_eq!(listed[1].1.wal.as_deref(), Some("wal.7"));
        // A gone server has no WAL directory; a live one has.
        fs.create_dir_all(&root.join(WAL_DIR).join(me)).unwrap();
        assert!(!is_gone(&fs, root, me).unwrap());
        assert!(is_gone(&fs, root, dead).unwrap());
        assert_eq!(
            claim(&fs, root, me, dead).unwrap(),
            vec![format!("p-{dead}")]
        );
        assert!(
            claim(&fs, root, "other", dead).unwrap().is_empty(),
            "claimed twice"
        );
        let needed = needed(&fs, root).unwrap();
        assert_eq!(needed.get(dead).map(String::as_str), Some("wal.3"));
        let old = root.join(OLD_WAL_DIR);
        assert!(is_needed(&needed, &old.join(dead).join("wal.3")));
        assert!(!is_needed(&needed, &old.join(dead).join("wal.2")));
        assert!(!is_needed(&needed, &old.join(me).join("wal.9")));
    }
}
