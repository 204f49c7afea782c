//! The server's flushers (HBase's MemStoreFlusher, `hbase.hstore.flusher.count` = 2
//! threads): they flush regions whose memstores reached MEMSTORE_FLUSHSIZE, and, while the
//! server's memstores are above the budget's low mark, the largest regions, so writers
//! rarely wait and never wait long.

use std::cmp::Reverse;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_region::MemstoreBudget;

use crate::RegionServer;

/// Flusher threads (HBase's `hbase.hstore.flusher.count`).
pub const FLUSHERS: usize = 2;

/// How often a flusher looks without being asked: to notice its server is gone.
const TICK: Duration = Duration::from_millis(100);

/// One round: flushes what is due. Returns whether it flushed anything.
fn flush_due(rs: &RegionServer, budget: &MemstoreBudget) -> bool {
    let mut regions = rs.online_regions();
    regions.sort_by_key(|r| Reverse(r.memstore_bytes()));
    let mut flushed = false;
    for region in &regions {
        let pressure = budget.above_low_mark() && region.memstore_bytes() > 0;
        if region.needs_flush() || pressure {
            // A failed flush keeps its snapshot; the next round retries it.
            flushed |= region.try_flush().unwrap_or(false);
        }
    }
    flushed
}

/// Starts the flushers; each ends when the server stops or is dropped.
pub fn start(rs: Weak<RegionServer>, budget: Arc<MemstoreBudget>) -> Vec<JoinHandle<()>> {
    (0..FLUSHERS)
        .filter_map(|i| {
            let rs = rs.clone();
            let budget = Arc::clone(&budget);
            std::thread::Builder::new()
                .name(format!("basalt-flusher-{i}"))
                .spawn(move || {
                    while budget.wait_for_work(TICK) {
                        let Some(rs) = rs.upgrade() else {
                            return;
                        };
                        if rs.is_stopping() {
                            return;
                        }
                        while flush_due(&rs, &budget) && !rs.is_stopping() {}
                    }
                })
                .ok()
        })
        .collect()
}
