//! The connection's background compactions: a worker thread that runs a minor compaction when
//! a flush says one is due, and a major compaction of every region on a period (HBase's
//! `hbase.hregion.majorcompaction`, 7 days by default). Reads and writes never wait for it.
//! It also flushes the regions that keep old WAL segments from being archived once there are
//! too many of them.

use std::sync::Weak;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::connection::Engine;

/// How often the worker looks even without a message: to notice its connection is gone and
/// to run periodic major compactions.
const TICK: Duration = Duration::from_secs(1);

/// Starts the worker; it ends when the connection is closed or dropped. `None` if no thread
/// could be started (compactions then run on demand only).
pub(crate) fn start(
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
        let tables: Vec<_> = engine.tables().values().cloned().collect();
        if let Some(wal) = &engine.region_config.wal {
            // Too many log segments: flush the regions that keep the oldest one, so it can
            // be archived (a failed flush is retried on the next tick).
            for name in wal.regions_to_flush() {
                if let Some(table) = tables.iter().find(|t| t.region.encoded_name() == name) {
                    let _ = table.region.flush();
                }
            }
        }
        for table in tables {
            let region = &table.region;
            let major_due = major_every.is_some_and(|every| {
                region.millis_since_major_compaction()
                    >= i64::try_from(every.as_millis()).unwrap_or(i64::MAX)
            });
            // A failed compaction leaves the store as it was; the next flush or tick retries.
            // COMPACTION_ENABLED false stops the automatic ones (explicit requests still run).
            if !region.descriptor().compaction_enabled {
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
