//! A region server on its own (HBase's `HRegionServer` as `hbase regionserver start` runs it):
//! its WAL directory claimed under its name, its log, block cache and memstore budget, and its
//! background threads (flushers, compactor), with no region open until its master assigns
//! one. `basalt regionserver` wraps it with the RPC server and ZooKeeper; stopping cleanly
//! flushes every region and retires the directory, aborting leaves the log for the master to
//! split.

use std::path::PathBuf;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::{Clock, Result, ServerName};
use basalt_fs::FileSystem;
use basalt_region::{MemstoreBudget, RegionConfig};
use basalt_storefile::BlockCache;
use basalt_wal::{Wal, WalConfig};

use crate::layout::{self, storage};
use crate::{RegionServer, compactor, flusher, wal_dirs};

/// How a region server on its own is set up.
#[derive(Debug, Clone)]
pub struct ServerSettings {
    pub fs: Arc<dyn FileSystem>,
    /// The shared data directory.
    pub root: PathBuf,
    /// `host:port` its RPC serves at (its name, with the start code).
    pub host_port: String,
    pub clock: Arc<dyn Clock>,
    pub block_cache_bytes: u64,
    /// Store files are read around the page cache (direct I/O).
    pub direct_reads: bool,
    pub global_memstore_bytes: u64,
    pub memstore_block_wait: Duration,
    pub wal: WalConfig,
    /// How often each region is major-compacted; None: never by itself.
    pub major_compaction_interval: Option<Duration>,
    /// Who may do what (off unless the cluster has access control on).
    pub access: Arc<basalt_common::acl::AccessControl>,
    /// Its settings file and the settings that change live (`update_config`).
    pub settings: Arc<basalt_common::site::LiveSettings>,
}

impl ServerSettings {
    /// HBase's defaults: a quarter of the memory (the machine's, or its cgroup's limit) each
    /// for the block cache and the memstores, a weekly major compaction.
    pub fn new(
        fs: Arc<dyn FileSystem>,
        root: PathBuf,
        host_port: String,
        clock: Arc<dyn Clock>,
    ) -> Self {
        ServerSettings {
            fs,
            root,
            host_port,
            clock,
            block_cache_bytes: BlockCache::default_capacity(),
            direct_reads: false,
            global_memstore_bytes: BlockCache::default_capacity(),
            memstore_block_wait: Duration::from_secs(60),
            wal: WalConfig::default(),
            major_compaction_interval: Some(Duration::from_secs(7 * 24 * 3600)),
            access: Arc::default(),
            settings: Arc::default(),
        }
    }
}

/// The share of the process's memory the block cache and the memstores may take together
/// (HBase refuses to start past the same 80% of its heap: the rest holds what neither
/// counts, such as RPC buffers, flush and compaction buffers and open files' top-level
/// indexes).
pub const MEMORY_SHARE: f64 = 0.8;

/// Checks that the block cache and the memstore budget fit in [`MEMORY_SHARE`] of `limit`,
/// the memory the process may use (its cgroup's limit, or the machine's).
pub fn check_memory(block_cache_bytes: u64, global_memstore_bytes: u64, limit: u64) -> Result<()> {
    let mib = |b: u64| b >> 20;
    let both = block_cache_bytes.saturating_add(global_memstore_bytes);
    if both as f64 > MEMORY_SHARE * limit as f64 {
        return Err(basalt_common::Error::InvalidArgument(format!(
            "the block cache ({} MiB) and the memstores ({} MiB) together take more than {}% \
             of the {} MiB this process may use (the machine's memory or its control group's \
             limit); make one of them smaller",
            mib(block_cache_bytes),
            mib(global_memstore_bytes),
            (MEMORY_SHARE * 100.0) as u32,
            mib(limit)
        )));
    }
    Ok(())
}

/// The block cache, memstore budget and log of a region server's regions.
pub fn region_config(
    block_cache_bytes: u64,
    direct_reads: bool,
    global_memstore_bytes: u64,
    memstore_block_wait: Duration,
    wal: Option<Arc<Wal>>,
) -> RegionConfig {
    let mut config = RegionConfig::default();
    if block_cache_bytes > 0 {
        config.block_cache = Some(Arc::new(
            BlockCache::new(block_cache_bytes).with_direct_reads(direct_reads),
        ));
    }
    if global_memstore_bytes > 0 {
        config.budget = Some(Arc::new(MemstoreBudget::new(
            usize::try_from(global_memstore_bytes).unwrap_or(usize::MAX),
            memstore_block_wait,
        )));
    }
    // The log and the regions count into one set of metrics.
    if let Some(wal) = &wal {
        config.metrics = Arc::clone(wal.metrics());
    }
    config.wal = wal;
    config
}

/// A running region server; see the module documentation.
#[derive(Debug)]
pub struct RunningServer {
    pub rs: Arc<RegionServer>,
    wal: Arc<Wal>,
    compactions: Sender<()>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl RunningServer {
    /// Claims `WALs/<host>,<port>,<start code>/` (start code: now, or the next free one),
    /// opens the log and starts the background threads.
    pub fn start(settings: ServerSettings) -> Result<RunningServer> {
        check_memory(
            settings.block_cache_bytes,
            settings.global_memstore_bytes,
            basalt_storefile::memory_limit(),
        )?;
        let fs = Arc::clone(&settings.fs);
        let root = settings.root.clone();
        layout::init_root(fs.as_ref(), &root, false)?;
        let wal_root = root.join(layout::WAL_DIR);
        fs.create_dir_all(&wal_root).map_err(storage)?;
        let own = wal_dirs::claim(
            fs.as_ref(),
            &wal_root,
            &settings.host_port,
            settings.clock.now_millis(),
        )?;
        let wal = Wal::create(
            Arc::clone(&fs),
            &own.dir,
            &root.join(layout::OLD_WAL_DIR),
            settings.wal.clone(),
        )?;
        let mut config = region_config(
            settings.block_cache_bytes,
            settings.direct_reads,
            settings.global_memstore_bytes,
            settings.memstore_block_wait,
            Some(Arc::clone(&wal)),
        );
        config.access = Arc::clone(&settings.access);
        config.settings = Arc::clone(&settings.settings);
        let (compactions, wake) = channel();
        let name = ServerName {
            host_port: settings.host_port.clone(),
            start_code: own.start_code,
        };
        let rs = Arc::new(RegionServer::new(
            name,
            Arc::clone(&settings.clock),
            config,
            fs,
            root,
            compactions.clone(),
            Some((own.dir, own.lock)),
        ));
        let mut workers: Vec<JoinHandle<()>> = compactor::start(
            Arc::downgrade(&rs),
            wake,
            settings.major_compaction_interval,
        )
        .into_iter()
        .collect();
        if let Some(budget) = &rs.config.budget {
            workers.extend(flusher::start(Arc::downgrade(&rs), Arc::clone(budget)));
        }
        Ok(RunningServer {
            rs,
            wal,
            compactions,
            workers: Mutex::new(workers),
        })
    }

    /// This server's name (`host,port,start code`).
    pub fn name(&self) -> &ServerName {
        &self.rs.name
    }

    /// Whether this server's WAL directory is still its own: a master that found it dead
    /// renamed it (`-splitting`) to split it, and the server must stop serving at once.
    pub fn is_fenced(&self) -> bool {
        match self.rs.wal_dir() {
            Some(dir) => !self.rs.fs.exists(dir).unwrap_or(false),
            None => false,
        }
    }

    fn stop_threads(&self) {
        self.rs.stop_background();
        let _ = self.compactions.send(());
        let workers =
            std::mem::take(&mut *self.workers.lock().unwrap_or_else(PoisonError::into_inner));
        for w in workers {
            let _ = w.join();
        }
    }

    /// Why the server's log refuses writes, once writing or syncing it failed (a disk error):
    /// nothing more can be acknowledged here.
    pub fn wal_failure(&self) -> Option<String> {
        self.wal.failure()
    }

    /// Stops cleanly: every region flushed and closed, the log closed, the WAL directory
    /// archived and deleted.
    pub fn stop(&self) -> Result<()> {
        self.stop_threads();
        for region in self.rs.online_regions() {
            self.rs.take_offline(&region);
            region.close()?;
        }
        self.wal.close()?;
        self.rs.stop()
    }

    /// Stops serving at once, writing nothing: the log stays for the master to split (a
    /// fenced or expired server).
    pub fn abort(&self) {
        for region in self.rs.online_regions() {
            self.rs.take_offline(&region);
        }
        self.stop_threads();
        self.rs.release_wal_lock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_and_the_memstores_fit_in_four_fifths_of_the_memory() {
        let gib = 1u64 << 30;
        assert!(check_memory(gib / 4, gib / 4, gib).is_ok(), "the defaults");
        assert!(
            check_memory(gib / 2, gib * 3 / 10, gib).is_ok(),
            "80% exactly"
        );
        let err = check_memory(gib / 2, gib / 2, gib).unwrap_err().to_string();
        assert!(
            err.contains("block cache (512 MiB) and the memstores (512 MiB)")
                && err.contains("80% of the 1024 MiB"),
            "{err}"
        );
    }
}
