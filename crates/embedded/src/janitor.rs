//! The master's background work in the embedded engine: every second it splits the regions its
//! region server says grew past their split size (the region server's split check, HBase's
//! `CompactSplit.requestSplit`, which a cluster's region server sends as MasterService
//! SplitRegion) and deletes split and merge parents no region reads any more (HBase's
//! `CatalogJanitor`), runs the region normalizer every `hbase.normalizer.period`, and works
//! out tables' space use against their space quotas every
//! `hbase.master.quotas.observer.chore.period`, putting the policies of those over in force.

use std::sync::Weak;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;

use basalt_master::procedures;
use basalt_regionserver::compactor::TICK;

use crate::engine::Engine;

/// Starts the thread; it ends when told to stop, or when the engine is closed or dropped.
pub fn start(engine: Weak<Engine>, stop: Receiver<()>) -> Option<JoinHandle<()>> {
    let mut last_normalize = std::time::Instant::now();
    let mut last_snapshot_cleanup = std::time::Instant::now();
    let mut last_space_check: Option<std::time::Instant> = None;
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
            for info in engine.rs.regions_to_split() {
                // A region that cannot split now (no split point, closed meanwhile) is looked
                // at again on the next tick.
                if let Ok(table) = engine.table(&info.table) {
                    let _ = procedures::split_region(&engine, &table, &info, None);
                }
            }
        }
        if engine
            .catalog_janitor_on
            .load(std::sync::atomic::Ordering::Acquire)
        {
            let _ = procedures::clean_parents(&engine);
        }
        let period = std::time::Duration::from_millis(engine.settings.normalizer_period_ms());
        if last_normalize.elapsed() >= period {
            last_normalize = std::time::Instant::now();
            let _ = basalt_master::normalizer::normalize(&engine, &[]);
        }
        let period =
            std::time::Duration::from_millis(engine.settings.snapshot_cleanup_interval_ms());
        if last_snapshot_cleanup.elapsed() >= period {
            last_snapshot_cleanup = std::time::Instant::now();
            if engine
                .snapshot_cleanup_on
                .load(std::sync::atomic::Ordering::Acquire)
            {
                let _ = basalt_master::snapshots::delete_expired(&engine);
            }
        }
        let period = std::time::Duration::from_millis(engine.settings.quota_observer_period_ms());
        if last_space_check.is_none_or(|t| t.elapsed() >= period) {
            last_space_check = Some(std::time::Instant::now());
            if let Err(e) = basalt_master::quota_store::observe_space(&engine) {
                eprintln!("WARNING: the space quota observer failed: {e}");
            }
            let violations = engine
                .space_use
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .violations();
            engine.rs.set_space_policies(&violations);
        }
    };
    std::thread::Builder::new()
        .name("basalt-splitter".into())
        .spawn(run)
        .ok()
}
