//! Where each region of a replicated table has been open, for serial peers (HBase's
//! replication barriers, kept in `hbase:meta`'s `rep_barrier` family): one file per region,
//! `<root>/replication/barriers/<encoded region>`, holding `PBUF` and `ReplicationBarriers`,
//! each opening's server, first sequence id, and where that server's WAL ended when the
//! region closed there. A split's or merge's new region starts with its parents' openings.
//! Only the server a region is open on writes its file. See `docs/design/replication.md`,
//! "Serial peers".

use std::path::{Path, PathBuf};

use basalt_common::{Error, Result};
use basalt_fs::FileSystem;
use basalt_proto::pb;
use prost::Message;

use crate::layout::storage;

const MAGIC: &[u8] = b"PBUF";

pub const BARRIERS_DIR: &str = "replication/barriers";

/// One opening of a region.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opening {
    pub server: String,
    pub open_seq: u64,
    /// The segment name and offset the server's WAL ended at when the region closed there.
    pub closed: Option<(String, u64)>,
}

fn path(root: &Path, region: &str) -> PathBuf {
    root.join(BARRIERS_DIR).join(region)
}

/// A region's openings, oldest first (none recorded: empty).
pub fn read(fs: &dyn FileSystem, root: &Path, region: &str) -> Result<Vec<Opening>> {
    let p = path(root, region);
    if !fs.exists(&p).map_err(storage)? {
        return Ok(Vec::new());
    }
    let bytes = basalt_fs::read_all(fs, &p).map_err(storage)?;
    let corrupt = |why: String| Error::corrupt(format!("barrier file {}: {why}", p.display()));
    let body = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| corrupt("it does not start with PBUF".into()))?;
    let b = pb::ReplicationBarriers::decode(body).map_err(|e| corrupt(e.to_string()))?;
    Ok(b.opening
        .into_iter()
        .map(|o| Opening {
            server: o.server,
            open_seq: o.open_seq,
            closed: o.closed_wal.map(|w| (w, o.closed_offset.unwrap_or(0))),
        })
        .collect())
}

fn write(fs: &dyn FileSystem, root: &Path, region: &str, openings: &[Opening]) -> Result<()> {
    let mut bytes = MAGIC.to_vec();
    pb::ReplicationBarriers {
        opening: openings
            .iter()
            .map(|o| pb::RegionOpening {
                server: o.server.clone(),
                open_seq: o.open_seq,
                closed_wal: o.closed.as_ref().map(|c| c.0.clone()),
                closed_offset: o.closed.as_ref().map(|c| c.1),
            })
            .collect(),
    }
    .encode(&mut bytes)
    .map_err(|e| Error::storage(format!("encoding barriers of {region}: {e}")))?;
    let dir = root.join(BARRIERS_DIR);
    fs.create_dir_all(&dir).map_err(storage)?;
    basalt_fs::write_atomically(fs, &path(root, region), &bytes).map_err(storage)
}

/// Records that `region` opened on `server`, its edits there from `open_seq` on; a new region
/// of a split or merge first takes its parents' openings.
pub fn record_open(
    fs: &dyn FileSystem,
    root: &Path,
    region: &str,
    server: &str,
    open_seq: u64,
    parents: &[&str],
) -> Result<()> {
    let mut openings = Vec::new();
    for p in parents {
        openings.extend(read(fs, root, p)?);
    }
    openings.extend(read(fs, root, region)?);
    openings.push(Opening {
        server: server.to_owned(),
        open_seq,
        closed: None,
    });
    write(fs, root, region, &openings)
}

/// Records that `region` closed on `server`, whose WAL then ended at `at`.
pub fn record_close(
    fs: &dyn FileSystem,
    root: &Path,
    region: &str,
    server: &str,
    at: (String, u64),
) -> Result<()> {
    let mut openings = read(fs, root, region)?;
    let Some(last) = openings.iter_mut().rev().find(|o| o.server == server) else {
        return Ok(());
    };
    last.closed = Some(at);
    write(fs, root, region, &openings)
}
