//! The engine's background workers. The compactor flushes regions that keep old WAL segments
//! from being archived and runs minor compactions when a flush says one is due and major
//! compactions on a period (HBase's `hbase.hregion.majorcompaction`, 7 days by default). The
//! splitter splits regions that grew past their table's split size and deletes split and
//! merge parents no region reads any more. Reads and writes never wait for them.

use std::sync::Arc;
use std::sync::Weak;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::TableDescriptor;

use crate::engine::{Engine, HostedTable};
use crate::procedures;

/// How often the worker looks even without a message: to notice its connection is gone and
/// to run periodic major compactions.
const TICK: Duration = Duration::from_secs(1);

/// Most regions one server splits into (HBase's `hbase.regionserver.regionSplitLimit`).
const REGION_SPLIT_LIMIT: usize = 1000;

/// What the background worker does besides compactions.
#[derive(Debug, Clone)]
pub struct Settings {
    pub auto_split: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { auto_split: true }
    }
}

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

/// Splits the regions of `table` whose largest store passed the split size.
fn split_grown(engine: &Engine, table: &Arc<HostedTable>) {
    if !table.is_enabled() || table.name.is_system() {
        return;
    }
    let regions = table.regions();
    let Some(limit) = split_size(&table.descriptor(), regions.len()) else {
        return;
    };
    for region in regions {
        if region.largest_store_size() > limit && !region.has_references() {
            // A region that cannot split now (no split point, closed meanwhile) is looked at
            // again on the next tick.
            let _ = procedures::split_region(engine, table, region.info(), None);
        }
    }
}

/// Starts the worker; it ends when the connection is closed or dropped. `None` if no thread
/// could be started (compactions then run on demand only).
pub fn start(
    engine: Weak<Engine>,
    wake: Receiver<()>,
    major_every: Option<Duration>,
) -> Option<JoinHandle<()>> {
    let run = move || loop {
        match wake.recv_timeout(TICK) {
            Ok(()) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(engine) = engine.upgrade() else {
            return;
        };
        if engine.check_open().is_err() {
            return;
        }
        let regions = engine.all_regions();
        if let Some(wal) = &engine.region_config.wal {
            // Too many log segments: flush the regions that keep the oldest one, so it can
            // be archived (a failed flush is retried on the next tick).
            for name in wal.regions_to_flush() {
                if let Some(region) = regions.iter().find(|r| r.encoded_name() == name) {
                    let _ = region.flush();
                }
            }
            // Archived segments past their time to live go (a failure retries next tick).
            let _ = wal.clean_archive();
        }
        for region in &regions {
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

/// Starts the splitter (HBase's split pool, one thread): every tick it splits the regions that
/// grew past their split size, and deletes the split and merge parents no region reads any
/// more. It ends when the connection is closed or dropped.
pub fn start_splitter(engine: Weak<Engine>, stop: Receiver<()>) -> Option<JoinHandle<()>> {
    let run = move || loop {
        match stop.recv_timeout(TICK) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
        let Some(engine) = engine.upgrade() else {
            return;
        };
        if engine.check_open().is_err() {
            return;
        }
        if engine.background.auto_split {
            let tables: Vec<_> = engine.tables().values().cloned().collect();
            let total: usize = tables.iter().map(|t| t.regions().len()).sum();
            if total < REGION_SPLIT_LIMIT {
                for table in &tables {
                    split_grown(&engine, table);
                }
            }
        }
        let _ = procedures::clean_parents(&engine);
    };
    std::thread::Builder::new()
        .name("basalt-splitter".into())
        .spawn(run)
        .ok()
}
