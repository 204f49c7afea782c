//! A region server's figures at one moment ([`ServerStatus`]), for the info pages and
//! `/metrics`: each online region's sizes and request counts, the block cache, the work
//! waiting in the background, the WAL's segments and the tasks running.

use std::sync::Arc;

use basalt_common::metrics::{
    RegionStatus, ReplicationSinkStatus, ReplicationSourceStatus, ServerMetrics, ServerStatus,
};
use basalt_region::Region;

use crate::RegionServer;

/// One region's figures.
pub fn region_status(region: &Region) -> RegionStatus {
    let info = region.info();
    RegionStatus {
        name: String::from_utf8_lossy(&info.region_name()).into_owned(),
        encoded_name: region.encoded_name().to_owned(),
        table: info.table.to_string(),
        start_key: info.start_key.to_vec(),
        end_key: info.end_key.to_vec(),
        stores: region.descriptor().families().len(),
        store_files: region.store_file_counts().iter().sum(),
        store_file_bytes: region.store_files_size(),
        memstore_bytes: region.memstore_bytes() as u64,
        read_requests: region.requests().reads(),
        write_requests: region.requests().writes(),
        last_major_compaction_ms: region.last_major_compaction_ms(),
        coprocessors: region
            .observer()
            .map(|o| o.modules())
            .unwrap_or_default()
            .into_iter()
            .map(|(module, loaded)| basalt_common::metrics::CoprocessorStatus { module, loaded })
            .collect(),
    }
}

impl RegionServer {
    /// The server's figures now.
    pub fn status(&self) -> ServerStatus {
        let regions = self.online_regions();
        let mut status = ServerStatus {
            name: self.name.to_string(),
            flush_queue: regions.iter().filter(|r| r.needs_flush()).count(),
            compaction_queue: regions.iter().filter(|r| r.wants_compaction()).count(),
            tasks: self.config.metrics.tasks.running(),
            open_scanners: self
                .config
                .metrics
                .open_scanners
                .load(std::sync::atomic::Ordering::Relaxed),
            ..ServerStatus::default()
        };
        let mut listed: Vec<RegionStatus> = regions.iter().map(|r| region_status(r)).collect();
        listed.sort_by(|a, b| (&a.table, &a.start_key).cmp(&(&b.table, &b.start_key)));
        status.regions = listed;
        if let Some(cache) = &self.config.block_cache {
            let s = cache.stats();
            status.block_cache_bytes = s.bytes;
            status.block_cache_capacity = s.capacity;
            status.block_cache_blocks = s.blocks;
            status.block_cache_hits = s.hits;
            status.block_cache_misses = s.misses;
            status.block_cache_evictions = s.evictions;
        }
        if let Some(dir) = self.wal_dir() {
            status.wal_files = basalt_wal::segments_in(self.fs.as_ref(), dir)
                .map(|s| s.len())
                .unwrap_or(0);
        }
        if let Some(r) = self.replication() {
            status.replication_sources = r.sources().iter().map(source_status).collect();
        }
        status.replication_sink = sink_status(&self.sink_metrics);
        status.users = self.user_requests.snapshot();
        status
    }

    /// The metrics its regions and WAL count into.
    pub fn metrics(&self) -> Arc<ServerMetrics> {
        Arc::clone(&self.config.metrics)
    }
}

fn source_status(s: &crate::replication::SourceStatus) -> ReplicationSourceStatus {
    use std::sync::atomic::Ordering::Relaxed;
    let m = &s.metrics;
    ReplicationSourceStatus {
        peer: s.peer.clone(),
        queue: s.queue.clone(),
        recovered: s.recovered,
        running: m.running.load(Relaxed),
        age_of_last_shipped_op_ms: m.age_ms.load(Relaxed),
        size_of_log_queue: m.log_queue.load(Relaxed),
        edits_read: m.edits_read.load(Relaxed),
        shipped_ops: m.shipped_ops.load(Relaxed),
        shipped_batches: m.shipped_batches.load(Relaxed),
        shipped_bytes: m.shipped_bytes.load(Relaxed),
        failed_batches: m.failed_batches.load(Relaxed),
        last_shipped_at: m.last_shipped_at.load(Relaxed),
        last_error: m
            .last_error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone(),
    }
}

fn sink_status(m: &crate::replication::sink::SinkMetrics) -> ReplicationSinkStatus {
    use std::sync::atomic::Ordering::Relaxed;
    ReplicationSinkStatus {
        applied_ops: m.applied_ops.load(Relaxed),
        applied_batches: m.applied_batches.load(Relaxed),
        failed_batches: m.failed_batches.load(Relaxed),
        age_of_last_applied_op_ms: m.age_ms.load(Relaxed),
        last_applied_at: m.last_applied_at.load(Relaxed),
    }
}
