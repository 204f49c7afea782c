//! The sink (HBase's `ReplicationSink`): a batch a peer's source shipped becomes puts and
//! deletes of this cluster, applied through its client (the rows may be on any server). Every
//! cell keeps its timestamp and type, and every mutation names the clusters the edit came
//! through, so a batch applied twice leaves the same cells, and the edits are not shipped
//! back where they came from.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use basalt_client::{BatchOp, Client};
use basalt_common::ops::DeleteEntry;
use basalt_common::replication::ClusterId;
use basalt_common::{Bytes, CellType, Delete, Error, Put, Result, TableName};
use basalt_proto::pb;

use super::wire::{self, Received};

/// Makes the client the sink applies through (a cluster's region server connects to its own
/// cluster the first time a batch comes).
pub type Connect = Box<dyn Fn() -> Result<Arc<dyn Client>> + Send + Sync>;

/// What a sink counts (HBase's `MetricsSink`).
#[derive(Debug, Default)]
pub struct SinkMetrics {
    /// Edits applied.
    pub applied_ops: AtomicU64,
    pub applied_batches: AtomicU64,
    /// From the newest edit's write at its source to its applying here, as of the last
    /// batch, in milliseconds.
    pub age_ms: AtomicI64,
    /// When the last batch was applied.
    pub last_applied_at: AtomicI64,
    pub failed_batches: AtomicU64,
}

pub struct Sink {
    connect: Connect,
    client: Mutex<Option<Arc<dyn Client>>>,
    pub metrics: Arc<SinkMetrics>,
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sink")
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// An entry's cells as mutations of their rows, in order: each run of one row's puts is a
/// Put, each run of its delete markers a Delete.
fn mutations(e: &Received) -> Result<Vec<BatchOp>> {
    let mut ops: Vec<BatchOp> = Vec::new();
    for kv in &e.cells {
        let kind = CellType::from_code(kv.kind)
            .filter(|t| *t == CellType::Put || t.is_delete())
            .ok_or_else(|| {
                Error::InvalidArgument(format!("ReplicateWALEntry: cell type {}", kv.kind))
            })?;
        let (f, q, ts) = (kv.family.clone(), kv.qualifier.clone(), kv.timestamp);
        if kind == CellType::Put {
            match ops.last_mut() {
                Some(BatchOp::Put(p)) if p.row == kv.row => {
                    p.cells.push(put_cell(f, q, ts, kv.value.clone()));
                }
                _ => {
                    let mut p = Put::new(kv.row.clone());
                    p.cells.push(put_cell(f, q, ts, kv.value.clone()));
                    p.cluster_ids = e.cluster_ids.clone();
                    ops.push(BatchOp::Put(p));
                }
            }
            continue;
        }
        if !matches!(ops.last(), Some(BatchOp::Delete(d)) if d.row == kv.row) {
            let mut d = Delete::new(kv.row.clone());
            d.cluster_ids = e.cluster_ids.clone();
            ops.push(BatchOp::Delete(d));
        }
        if let Some(BatchOp::Delete(d)) = ops.last_mut() {
            d.entries.push(DeleteEntry {
                family: f,
                qualifier: q,
                timestamp: Some(ts),
                kind,
            });
        }
    }
    Ok(ops)
}

fn put_cell(family: Bytes, qualifier: Bytes, ts: i64, value: Bytes) -> basalt_common::ops::PutCell {
    basalt_common::ops::PutCell {
        family,
        qualifier,
        timestamp: Some(ts),
        value,
    }
}

impl Sink {
    /// A sink applying through the client `connect` makes, counting into `metrics` (the
    /// region server's, [`crate::RegionServer::sink_metrics`]).
    pub fn new(connect: Connect, metrics: Arc<SinkMetrics>) -> Sink {
        Sink {
            connect,
            client: Mutex::new(None),
            metrics,
        }
    }

    /// A sink applying through `client`.
    pub fn with_client(client: Arc<dyn Client>, metrics: Arc<SinkMetrics>) -> Sink {
        Sink::new(Box::new(move || Ok(Arc::clone(&client))), metrics)
    }

    fn client(&self) -> Result<Arc<dyn Client>> {
        let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = slot.as_ref() {
            return Ok(Arc::clone(c));
        }
        let c = (self.connect)()?;
        *slot = Some(Arc::clone(&c));
        Ok(c)
    }

    /// Applies a shipped batch; an error fails it whole, and the source sends it again.
    pub fn apply(&self, req: &pb::ReplicateWalEntryRequest, block: &Bytes) -> Result<()> {
        let base = req
            .source_base_namespace_dir_path
            .as_deref()
            .map(std::path::Path::new);
        let result = wire::received(req, block)
            .and_then(|entries| with_bulk_loads(entries, base))
            .and_then(|entries| self.apply_entries(&entries));
        if result.is_err() {
            self.metrics.failed_batches.fetch_add(1, Ordering::Relaxed);
            // A broken connection is made again on the next batch.
            *self.client.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
        result
    }

    fn apply_entries(&self, entries: &[Received]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let client = self.client()?;
        // One batch per table, in the order the entries came.
        let mut tables: Vec<(TableName, Vec<BatchOp>)> = Vec::new();
        let mut newest = i64::MIN;
        for e in entries {
            newest = newest.max(e.write_time_ms);
            let ops = mutations(e)?;
            match tables.iter_mut().find(|(t, _)| *t == e.table) {
                Some((_, all)) => all.extend(ops),
                None => tables.push((e.table.clone(), ops)),
            }
        }
        for (table, ops) in &tables {
            for outcome in client.batch(table, ops) {
                outcome?;
            }
        }
        let m = &self.metrics;
        m.applied_ops
            .fetch_add(entries.len() as u64, Ordering::Relaxed);
        m.applied_batches.fetch_add(1, Ordering::Relaxed);
        let now = now_ms();
        m.age_ms
            .store(now.saturating_sub(newest), Ordering::Relaxed);
        m.last_applied_at.store(now, Ordering::Relaxed);
        Ok(())
    }
}

/// Entries with a bulk-load marker get the cells of the files it names in its place, read from
/// the source's root `base`.
fn with_bulk_loads(
    mut entries: Vec<Received>,
    base: Option<&std::path::Path>,
) -> Result<Vec<Received>> {
    for e in &mut entries {
        let (markers, cells): (Vec<_>, Vec<_>) = std::mem::take(&mut e.cells)
            .into_iter()
            .partition(|kv| kv.family[..] == *super::bulk::METAFAMILY);
        e.cells = cells;
        for m in markers {
            let base = base.ok_or_else(|| {
                Error::InvalidArgument(
                    "ReplicateWALEntry: a bulk load without sourceBaseNamespaceDirPath".into(),
                )
            })?;
            let (_, loaded) = super::bulk::marked_cells(&m.value, base)?;
            e.cells
                .extend(loaded.iter().map(|c| basalt_proto::cellblock::KeyValue {
                    row: Bytes::copy_from_slice(c.row()),
                    family: Bytes::copy_from_slice(c.family()),
                    qualifier: Bytes::copy_from_slice(c.qualifier()),
                    timestamp: c.timestamp,
                    kind: c.cell_type.code(),
                    value: Bytes::copy_from_slice(c.value()),
                }));
        }
    }
    Ok(entries)
}

/// The cluster ids an entry carries when it leaves this cluster: those it came with, and
/// this one's (HBase's `ClusterMarkingEntryFilter`).
pub fn outgoing_ids(came_through: &[ClusterId], own: ClusterId) -> Vec<ClusterId> {
    let mut ids = came_through.to_vec();
    if !ids.contains(&own) {
        ids.push(own);
    }
    ids
}
