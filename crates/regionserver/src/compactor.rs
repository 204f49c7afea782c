//! The region server's background work on its regions (HBase's `CompactSplit` and
//! `CompactionChecker`): the compactor flushes regions that keep old WAL segments from being
//! archived, runs minor compactions when a flush says one is due and major compactions on a
//! period (HBase's `hbase.hregion.majorcompaction`, 7 days by default); and the split check
//! names the regions that grew past their table's split size, for the master to split. Reads
//! and writes never wait for them.

use std::collections::HashMap;
use std::sync::Weak;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::{RegionInfo, TableDescriptor, TableName};

use crate::RegionServer;

/// How often the worker looks even without a message: to notice its server is gone and to
/// run periodic major compactions.
pub const TICK: Duration = Duration::from_secs(1);

/// Most regions one server splits into (HBase's `hbase.regionserver.regionSplitLimit`).
const REGION_SPLIT_LIMIT: usize = 1000;

/// The size past which a region of `table` (which has `regions` regions) splits: HBase's
/// split policies (`SPLIT_POLICY`), SteppingSplitPolicy by default: twice the flush size
/// while the table has one region, MAX_FILESIZE after. None: the table does not split by
/// itself.
pub fn split_size(table: &TableDescriptor, regions: usize) -> Option<u64> {
    if !table.split_enabled {
        return None;
    }
    let policy = table
        .split_policy
        .as_deref()
        .unwrap_or("SteppingSplitPolicy");
    let initial = table.memstore_flushsize.saturating_mul(2);
    let name = policy.rsplit('.').next().unwrap_or(policy);
    match name {
        "DisabledRegionSplitPolicy" => None,
        "ConstantSizeRegionSplitPolicy" => Some(table.max_filesize),
        "IncreasingToUpperBoundRegionSplitPolicy" => {
            let n = regions.min(1 << 20) as u64;
            Some(
                initial
                    .saturating_mul(n.saturating_mul(n).saturating_mul(n))
                    .min(table.max_filesize),
            )
        }
        _ if regions <= 1 => Some(initial),
        _ => Some(table.max_filesize),
    }
}

impl RegionServer {
    /// The online regions that grew past their table's split size (HBase's split policy,
    /// counting the table's regions on this server) and can split now (no references): what
    /// this server asks its master to split. None while the server holds
    /// `REGION_SPLIT_LIMIT` regions or more.
    pub fn regions_to_split(&self) -> Vec<RegionInfo> {
        let online = self.online_regions();
        if online.len() >= REGION_SPLIT_LIMIT {
            return Vec::new();
        }
        let mut per_table: HashMap<&TableName, usize> = HashMap::new();
        for r in &online {
            *per_table.entry(&r.info().table).or_default() += 1;
        }
        let mut out: Vec<RegionInfo> = online
            .iter()
            .filter(|r| !r.info().table.is_system() && !r.is_closed() && !r.has_references())
            .filter(|r| {
                let count = per_table.get(&r.info().table).copied().unwrap_or(1);
                split_size(r.descriptor(), count)
                    .is_some_and(|limit| r.largest_store_size() > limit)
            })
            .map(|r| r.info().clone())
            .collect();
        out.sort_by(|a, b| (&a.table, &a.start_key).cmp(&(&b.table, &b.start_key)));
        out
    }
}

/// Starts the worker; it ends when the server stops or goes away. `None` if no thread
/// could be started (compactions then run on demand only).
pub fn start(
    server: Weak<RegionServer>,
    wake: Receiver<()>,
    major_every: Option<Duration>,
) -> Option<JoinHandle<()>> {
    let run = move || loop {
        match wake.recv_timeout(TICK) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(server) = server.upgrade() else {
            return;
        };
        if server.is_stopping() {
            return;
        }
        let regions = server.online_regions();
        if let Some(wal) = &server.config.wal {
            // Too many log segments: flush the regions that keep the oldest one, so it can
            // be archived (a failed flush is retried on the next tick).
            for name in wal.regions_to_flush() {
                if let Some(region) = regions.iter().find(|r| r.encoded_name() == name) {
                    let _ = region.flush();
                }
            }
        }
        // Archived segments past their time to live go, unless a replication queue still
        // needs them or the cleaner chore is off (a failure retries next tick).
        let _ = server.clean_wal_archive(false);
        for region in regions.iter().filter(|_| server.compactions_on()) {
            let major_due = major_every.is_some_and(|every| {
                region.millis_since_major_compaction()
                    >= i64::try_from(every.as_millis()).unwrap_or(i64::MAX)
            });
            // A failed compaction leaves the store as it was; the next flush or tick retries.
            // COMPACTION_ENABLED false stops the automatic ones, references included
            // (explicit requests still run).
            if region.is_closed() || !region.descriptor().compaction_enabled {
                continue;
            }
            if major_due {
                let _ = region.compact(true);
            } else if region.wants_compaction() {
                let _ = region.compact(false);
            }
        }
    };
    std::thread::Builder::new()
        .name("basalt-compactor".into())
        .spawn(run)
        .ok()
}
