//! Each server's write-ahead log directory, `WALs/<host>,<port>,<start code>/` (HBase's
//! `ServerName`), locked by its server while it lives (`WALs/<server>/LOCK`). A directory
//! whose lock can be taken belongs to a server that is gone: its segments are replayed into
//! the regions at open (recovery), archived under the server's name (`oldWALs/<server>/`), and
//! the directory deleted. `WALs/embedded`, from before directories were per server, is one
//! such directory. A server that stops cleanly archives its own directory the same way.

use std::path::{Path, PathBuf};

use basalt_common::{Result, ServerName};
use basalt_fs::{FileLock, FileSystem, FsError};

use crate::layout::{self, storage};

/// The lock file in a server's directory.
const SERVER_LOCK: &str = "LOCK";

/// This server's directory, claimed and locked.
#[derive(Debug)]
pub struct OwnWals {
    pub dir: PathBuf,
    /// The start code in the directory's name (the server's, everywhere it is named).
    pub start_code: i64,
    pub lock: Box<dyn FileLock>,
}

/// A gone server's directory: its segments, and its lock, held until it is retired.
#[derive(Debug)]
pub struct DeadServer {
    dir: PathBuf,
    start_code: i64,
    pub segments: Vec<PathBuf>,
    _lock: Box<dyn FileLock>,
}

/// The start code at the end of a server directory's name; 0 for a name without one
/// (`embedded`), which sorts it first.
fn start_code_of(name: &str) -> i64 {
    name.rsplit_once(',')
        .and_then(|(_, code)| code.parse().ok())
        .unwrap_or(0)
}

/// Claims this server's directory under `wal_root`: start code `now`, or the first later one
/// no directory has (a restart within the same millisecond, or a clock that went back).
pub fn claim(fs: &dyn FileSystem, wal_root: &Path, host_port: &str, now: i64) -> Result<OwnWals> {
    let existing = layout::list(fs, wal_root)?;
    // Bounded: each turn passes a name that exists, or one another server took meanwhile.
    let tries = i64::try_from(existing.len())
        .unwrap_or(i64::MAX)
        .saturating_add(64);
    for start_code in now..=now.saturating_add(tries) {
        let name = ServerName::new(host_port, start_code).to_string();
        if !existing.contains(&name) {
            let dir = wal_root.join(name);
            fs.create_dir_all(&dir).map_err(storage)?;
            match fs.lock(&dir.join(SERVER_LOCK)) {
                Ok(lock) => {
                    return Ok(OwnWals {
                        dir,
                        start_code,
                        lock,
                    });
                }
                // Another server on this host and port claimed it just now.
                Err(FsError::Locked(_)) => {}
                Err(e) => return Err(storage(e)),
            }
        }
    }
    Err(basalt_common::Error::storage(format!(
        "no free server directory for {host_port} under {}",
        wal_root.display()
    )))
}

/// The directories of servers that are gone (their lock is free), oldest first, each locked
/// until [`retire`]d. Directories of live servers, and `own`, are left alone.
pub fn dead_servers(fs: &dyn FileSystem, wal_root: &Path, own: &Path) -> Result<Vec<DeadServer>> {
    let mut dead = Vec::new();
    for name in layout::list(fs, wal_root)? {
        let dir = wal_root.join(&name);
        if dir == own {
            continue;
        }
        match fs.lock(&dir.join(SERVER_LOCK)) {
            Ok(lock) => dead.push(DeadServer {
                segments: basalt_wal::segments_in(fs, &dir)?,
                start_code: start_code_of(&name),
                dir,
                _lock: lock,
            }),
            Err(FsError::Locked(_)) => {}
            Err(e) => return Err(storage(e)),
        }
    }
    dead.sort_by_key(|d| d.start_code);
    Ok(dead)
}

/// Deletes gone servers' directories, once their segments are replayed, flushed and archived.
pub fn retire(fs: &dyn FileSystem, dead: Vec<DeadServer>) -> Result<()> {
    for server in dead {
        fs.delete_dir_all(&server.dir).map_err(storage)?;
    }
    Ok(())
}
