//! How the master asks a region server for region work (HBase's `AsyncRegionServerAdmin`, as
//! its assignment manager and procedures use it): open, close and reopen a region, flush it,
//! and the region half of a split or merge followed by the master's verdict. Every request
//! names the region by its `RegionInfo`, which is all the master knows of it.
//!
//! [`LocalServer`] is the region server in the master's own process (`basalt standalone`, the
//! embedded engine); a cluster's master reaches each of its region servers over AdminService
//! (`remote`, `docs/design/cluster.md`). The master's procedures see only this interface.

mod link;
mod remote;
mod remote_meta;

use std::sync::Arc;

use basalt_common::{Bytes, RegionInfo, Result, ServerName};
use basalt_regionserver::RegionServer;

pub use link::LinkConfig;
pub use remote::RemoteServer;
pub use remote_meta::RemoteMeta;

/// Region work the master asks of one region server; see the module documentation.
pub trait RegionServerAdmin: Send + Sync + std::fmt::Debug {
    /// The server's name (`host,port,startcode`), as meta records it.
    fn name(&self) -> &ServerName;

    /// Opens the region with its table's schema as stored and puts it online; returns the
    /// sequence id it opened at (meta's `info:seqnumDuringOpen`). A region already online there
    /// stays as it is.
    fn open_region(&self, info: &RegionInfo) -> Result<u64>;

    /// Flushes and closes the region; false when it was not online.
    fn close_region(&self, info: &RegionInfo) -> Result<bool>;

    /// Closes the region and opens it again with the schema as now stored (an altered
    /// table); if it cannot open, the region serves on as it was and the error says why.
    /// Returns the sequence id it opened at.
    fn reopen_region(&self, info: &RegionInfo) -> Result<u64>;

    /// Stops or starts serving the region (a table disabled or enabled).
    fn set_serving(&self, info: &RegionInfo, serving: bool) -> Result<()>;

    /// Closes a region of a deleted table without flushing it; nothing needs its edits.
    fn drop_region(&self, info: &RegionInfo) -> Result<()>;

    /// Flushes the region's memstore to store files.
    fn flush_region(&self, info: &RegionInfo) -> Result<()>;

    /// Compacts the region's stores (every file of each when `major`).
    fn compact_region(&self, info: &RegionInfo, major: bool) -> Result<()>;

    /// The region half of a split (flush, close, the daughters' files): the daughters, with
    /// region id `daughter_id`, at `at` or the region's own split point.
    fn split_region(
        &self,
        parent: &RegionInfo,
        at: Option<Bytes>,
        daughter_id: i64,
    ) -> Result<[RegionInfo; 2]>;

    /// The region half of a merge of adjacent `lo` and `hi` into `merged`.
    fn merge_regions(&self, lo: &RegionInfo, hi: &RegionInfo, merged: &RegionInfo) -> Result<()>;

    /// Ends a prepared split or merge: `committed`, the new regions open (their sequence ids
    /// returned in order); otherwise the parents serve again.
    fn settle(
        &self,
        parents: &[RegionInfo],
        children: &[RegionInfo],
        committed: bool,
    ) -> Result<Vec<u64>>;

    /// The figures of the server's online regions (AdminService's GetRegionLoad).
    fn region_loads(&self) -> Result<Vec<basalt_proto::pb::RegionLoad>>;

    /// The server's replication figures and running tasks (AdminService's GetServerReport,
    /// Basalt's).
    fn report(&self) -> Result<basalt_proto::pb::GetServerReportResponse>;

    /// Deletes the server's archived WAL segments past their time to live now, whatever the
    /// cleaner's switch (Basalt's AdminService RunLogCleaner); how many went.
    fn run_log_cleaner(&self) -> Result<u64>;

    /// Reads and writes the rows of the region `info` on this server from the master (a
    /// system table's, as `hbase:acl`'s, in a cluster). The master's own region server has
    /// its regions in the process instead.
    fn rows(&self, info: &RegionInfo) -> Result<Arc<dyn crate::meta::MetaStore>> {
        Err(basalt_common::Error::Refused(format!(
            "region {}: in the master's own process; use it directly",
            String::from_utf8_lossy(&info.region_name())
        )))
    }
}

/// The region server in the master's own process.
#[derive(Debug)]
pub struct LocalServer {
    pub rs: Arc<RegionServer>,
}

impl RegionServerAdmin for LocalServer {
    fn name(&self) -> &ServerName {
        &self.rs.name
    }

    fn region_loads(&self) -> Result<Vec<basalt_proto::pb::RegionLoad>> {
        Ok(self
            .rs
            .status()
            .regions
            .iter()
            .map(basalt_proto::region_load)
            .collect())
    }

    fn report(&self) -> Result<basalt_proto::pb::GetServerReportResponse> {
        Ok(basalt_proto::server_report(&self.rs.status()))
    }

    fn run_log_cleaner(&self) -> Result<u64> {
        Ok(self.rs.clean_wal_archive(true)? as u64)
    }

    fn open_region(&self, info: &RegionInfo) -> Result<u64> {
        Ok(self.rs.assign(info)?.last_sequence_id())
    }

    fn close_region(&self, info: &RegionInfo) -> Result<bool> {
        self.rs.unassign(info)
    }

    fn reopen_region(&self, info: &RegionInfo) -> Result<u64> {
        Ok(self.rs.reopen(info)?.last_sequence_id())
    }

    fn set_serving(&self, info: &RegionInfo, serving: bool) -> Result<()> {
        self.rs.set_serving(info, serving)
    }

    fn drop_region(&self, info: &RegionInfo) -> Result<()> {
        self.rs.drop_region(info)
    }

    fn flush_region(&self, info: &RegionInfo) -> Result<()> {
        self.rs.flush_named(info)
    }

    fn compact_region(&self, info: &RegionInfo, major: bool) -> Result<()> {
        self.rs.compact_named(info, major)
    }

    fn split_region(
        &self,
        parent: &RegionInfo,
        at: Option<Bytes>,
        daughter_id: i64,
    ) -> Result<[RegionInfo; 2]> {
        self.rs.split_region(parent, at, daughter_id)
    }

    fn merge_regions(&self, lo: &RegionInfo, hi: &RegionInfo, merged: &RegionInfo) -> Result<()> {
        self.rs.merge_regions(lo, hi, merged)
    }

    fn settle(
        &self,
        parents: &[RegionInfo],
        children: &[RegionInfo],
        committed: bool,
    ) -> Result<Vec<u64>> {
        Ok(self
            .rs
            .settle(parents, children, committed)?
            .iter()
            .map(|r| r.last_sequence_id())
            .collect())
    }
}
