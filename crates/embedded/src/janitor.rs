//! The master's background work in the embedded engine, on a thread of its own: every second
//! it splits the regions its region server says grew past their split size (the region
//! server's split check, HBase's `CompactSplit.requestSplit`, which a cluster's region server
//! sends as MasterService SplitRegion), ticks the master's chores (`basalt_master::chores`:
//! the catalog janitor, the normalizer, snapshot cleanup and the space quota observer, the
//! same list a cluster's master runs), and puts the space policies the observer found in
//! force on its region server.

use std::sync::Weak;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;

use basalt_master::chores::{CHORES, ChoreRunner, SPACE_OBSERVER};
use basalt_master::procedures;
use basalt_regionserver::compactor::TICK;

use crate::engine::Engine;

/// Starts the thread; it ends when told to stop, or when the engine is closed or dropped.
pub fn start(engine: Weak<Engine>, stop: Receiver<()>) -> Option<JoinHandle<()>> {
    let chores = ChoreRunner::new(CHORES.iter().copied());
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
        let ran = chores.tick(&engine, &engine.settings);
        // The one region server is this process's: the policies the space quota observer
        // found are put in force here directly (a cluster's master publishes them).
        if !ran.contains(&SPACE_OBSERVER) {
            continue;
        }
        let violations = engine
            .space_use
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .violations();
        engine.rs.set_space_policies(&violations);
    };
    std::thread::Builder::new()
        .name("basalt-splitter".into())
        .spawn(run)
        .ok()
}
