//! `hbase:meta`: the catalog as a table of the engine (docs/design/catalog.md). It holds a
//! row per namespace (family `ns`, HBase 3's layout), a row per table with its state (family
//! `table`) and a row per region (family `info`), with values as HBase writes them ("PBUF" and
//! a protobuf message). Every catalog change is one atomic multi-row mutation of the meta
//! region, logged in the WAL: a crash leaves the catalog before or after it, never between.

use std::collections::BTreeMap;

use basalt_common::pb::{self, PbValue, PbWriter};
use basalt_common::table_name::{DEFAULT_NAMESPACE, SYSTEM_NAMESPACE};
use basalt_common::{Bytes, Delete, Error, Put, RegionInfo, Result, RowResult, Scan, TableName};
use basalt_region::{Region, RowMutation};

pub use basalt_common::{NamespaceDescriptor, ServerName};

pub use basalt_layout::META_ENCODED;
pub use basalt_layout::meta_schema::{meta_descriptor, meta_region_info};
const INFO: &[u8] = b"info";
const TABLE: &[u8] = b"table";
const NS: &[u8] = b"ns";

/// A table's state in `table:state` (HBase's `TableState.State`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableState {
    Enabled,
    Disabled,
}

impl TableState {
    /// The bare message, as HBase's `MetaTableAccessor` writes it (no `PBUF`, unlike
    /// `info:regioninfo`).
    fn to_pb(self) -> Vec<u8> {
        let state = match self {
            TableState::Enabled => 0,
            TableState::Disabled => 1,
        };
        PbWriter::new().varint(1, state).finish()
    }

    /// Reads the bare message, or one behind `PBUF` (data directories written before this
    /// matched HBase).
    fn from_pb(value: &[u8]) -> Result<Self> {
        let bad = |reason: String| Error::corrupt(format!("table state: {reason}"));
        let body = value.strip_prefix(pb::PB_MAGIC).unwrap_or(value);
        let fields = pb::fields(body).map_err(bad)?;
        match fields.first() {
            // DISABLING is a disable that did not finish: the table is treated as disabled.
            Some((1, PbValue::Varint(1 | 2))) => Ok(TableState::Disabled),
            // ENABLING likewise counts as enabled.
            Some((1, PbValue::Varint(0 | 3))) => Ok(TableState::Enabled),
            other => Err(bad(format!("unexpected field {other:?}"))),
        }
    }
}

/// A region's row in meta.
#[derive(Debug, Clone)]
pub struct RegionRow {
    pub info: RegionInfo,
    /// `info:splitA` / `info:splitB` of a split parent.
    pub daughters: Vec<RegionInfo>,
    /// `info:merge0000`... of a merged region whose parents are not cleaned up yet.
    pub merge_parents: Vec<RegionInfo>,
    /// `info:state` (OPEN, CLOSED, SPLIT, ...).
    pub state: Option<String>,
    /// `info:server` and `info:serverstartcode`: where the region was last opened.
    pub server: Option<ServerName>,
}

impl RegionRow {
    /// Whether the region serves (not a split parent).
    pub fn is_serving(&self) -> bool {
        !self.info.offline && !self.info.split
    }
}

/// Builds the mutations of catalog changes, all at one timestamp that only grows, so a row
/// deleted and written again within a millisecond is not masked by its own delete marker.
#[derive(Debug)]
pub struct MetaBatch {
    ts: i64,
    pub mutations: Vec<RowMutation>,
}

impl MetaBatch {
    pub fn new(ts: i64) -> Self {
        MetaBatch {
            ts,
            mutations: Vec::new(),
        }
    }

    pub fn namespace(&mut self, ns: &NamespaceDescriptor) -> &mut Self {
        let put = Put::new(ns.name.clone().into_bytes())
            .with_timestamp(self.ts)
            .add_column(NS, "d", ns.to_pb());
        self.mutations.push(RowMutation::Put(put));
        self
    }

    pub fn table_state(&mut self, table: &TableName, state: TableState) -> &mut Self {
        let put = Put::new(table.to_string().into_bytes())
            .with_timestamp(self.ts)
            .add_column(TABLE, "state", state.to_pb());
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// A serving region's row: its info, state and server.
    pub fn region(&mut self, info: &RegionInfo, state: &str, server: &ServerName) -> &mut Self {
        let put = Put::new(info.region_name())
            .with_timestamp(self.ts)
            .add_column(INFO, "regioninfo", info.to_pb())
            .add_column(INFO, "state", state.to_owned())
            .add_column(INFO, "server", server.host_port.clone())
            .add_column(
                INFO,
                "serverstartcode",
                server.start_code.to_be_bytes().to_vec(),
            );
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// `info:seqnumDuringOpen`: the region's sequence id when it opened (8 bytes, big-endian).
    pub fn opened(&mut self, info: &RegionInfo, seq_id: u64) -> &mut Self {
        let put = Put::new(info.region_name())
            .with_timestamp(self.ts)
            .add_column(INFO, "seqnumDuringOpen", seq_id.to_be_bytes().to_vec());
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// Only a region's state column (OPEN or CLOSED on enable and disable).
    pub fn region_state(&mut self, info: &RegionInfo, state: &str) -> &mut Self {
        let put = Put::new(info.region_name())
            .with_timestamp(self.ts)
            .add_column(INFO, "state", state.to_owned());
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// A split parent: offline, split, state SPLIT, with its daughters.
    pub fn split_parent(
        &mut self,
        parent: &RegionInfo,
        a: &RegionInfo,
        b: &RegionInfo,
    ) -> &mut Self {
        let mut offline = parent.clone();
        offline.offline = true;
        offline.split = true;
        let put = Put::new(parent.region_name())
            .with_timestamp(self.ts)
            .add_column(INFO, "regioninfo", offline.to_pb())
            .add_column(INFO, "state", "SPLIT")
            .add_column(INFO, "splitA", a.to_pb())
            .add_column(INFO, "splitB", b.to_pb());
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// The `info:merge0000`, `info:merge0001` columns naming a merged region's parents.
    pub fn merge_parents(&mut self, child: &RegionInfo, parents: &[&RegionInfo]) -> &mut Self {
        let mut put = Put::new(child.region_name()).with_timestamp(self.ts);
        for (i, p) in parents.iter().enumerate() {
            put = put.add_column(INFO, format!("merge{i:04}"), p.to_pb());
        }
        self.mutations.push(RowMutation::Put(put));
        self
    }

    /// Removes the merge columns once the parents are gone.
    pub fn clear_merge_parents(&mut self, child: &RegionInfo, count: usize) -> &mut Self {
        let mut delete = Delete::new(child.region_name()).with_timestamp(self.ts);
        for i in 0..count {
            delete = delete.add_columns_at(INFO, format!("merge{i:04}"), self.ts);
        }
        self.mutations.push(RowMutation::Delete(delete));
        self
    }

    /// Deletes a whole row (every family) as of this batch's timestamp.
    pub fn delete_row(&mut self, row: impl Into<Bytes>) -> &mut Self {
        let delete = Delete::new(row.into()).with_timestamp(self.ts);
        self.mutations.push(RowMutation::Delete(delete));
        self
    }

    /// Applies the batch atomically, synced to disk before it returns: a catalog change
    /// survives power loss once made.
    pub fn commit(&self, meta: &dyn MetaStore) -> Result<()> {
        meta.mutate_rows(&self.mutations)
    }
}

/// Where the catalog is read and written: the meta region in this process, or on the region
/// server holding it (`servers::RemoteMeta`).
pub trait MetaStore: Send + Sync + std::fmt::Debug {
    /// Applies puts and deletes of several rows atomically, synced to disk (FSYNC_WAL)
    /// before it returns.
    fn mutate_rows(&self, mutations: &[RowMutation]) -> Result<()>;

    /// Every row with a cell in `family`, with that family's newest cells.
    fn scan_family(&self, family: &[u8]) -> Result<Vec<RowResult>>;

    /// The newest timestamp of any cell, delete markers included.
    fn newest_timestamp(&self) -> Result<i64>;
}

impl MetaStore for Region {
    fn mutate_rows(&self, mutations: &[RowMutation]) -> Result<()> {
        Region::mutate_rows(self, mutations, basalt_common::Durability::FsyncWal)
    }

    fn scan_family(&self, family: &[u8]) -> Result<Vec<RowResult>> {
        let scan = Scan::new().add_family(Bytes::copy_from_slice(family));
        self.scan(&scan)?.collect()
    }

    fn newest_timestamp(&self) -> Result<i64> {
        let scan = Scan::new().raw(true).read_all_versions();
        let mut newest = 0;
        for row in self.scan(&scan)? {
            for cell in &row?.cells {
                newest = newest.max(cell.timestamp);
            }
        }
        Ok(newest)
    }
}

pub fn read_namespaces(meta: &dyn MetaStore) -> Result<Vec<NamespaceDescriptor>> {
    meta.scan_family(NS)?
        .iter()
        .filter_map(|r| r.value(NS, b"d"))
        .map(NamespaceDescriptor::from_pb)
        .collect()
}

pub fn read_table_states(meta: &dyn MetaStore) -> Result<BTreeMap<TableName, TableState>> {
    let mut out = BTreeMap::new();
    for row in meta.scan_family(TABLE)? {
        let Some(v) = row.value(TABLE, b"state") else {
            continue;
        };
        let name = String::from_utf8(row.row.to_vec())
            .map_err(|_| Error::corrupt("hbase:meta: a table row is not UTF-8"))?;
        out.insert(TableName::parse(&name)?, TableState::from_pb(v)?);
    }
    Ok(out)
}

pub fn read_regions(meta: &dyn MetaStore) -> Result<Vec<RegionRow>> {
    let mut out = Vec::new();
    for row in meta.scan_family(INFO)? {
        let Some(v) = row.value(INFO, b"regioninfo") else {
            continue;
        };
        let info = RegionInfo::from_pb(v)?;
        let daughters = [b"splitA".as_slice(), b"splitB"]
            .iter()
            .filter_map(|q| row.value(INFO, q))
            .map(RegionInfo::from_pb)
            .collect::<Result<_>>()?;
        let merge_parents = row
            .cells
            .iter()
            .filter(|c| c.family() == INFO && c.qualifier().starts_with(b"merge"))
            .map(|c| RegionInfo::from_pb(c.value()))
            .collect::<Result<_>>()?;
        let state = row
            .value(INFO, b"state")
            .map(|v| String::from_utf8_lossy(v).into_owned());
        let server = match (
            row.value(INFO, b"server"),
            row.value(INFO, b"serverstartcode"),
        ) {
            (Some(host_port), Some(code)) => Some(ServerName {
                host_port: String::from_utf8_lossy(host_port).into_owned(),
                start_code: code
                    .try_into()
                    .map(i64::from_be_bytes)
                    .map_err(|_| Error::corrupt("hbase:meta: a serverstartcode is not 8 bytes"))?,
            }),
            _ => None,
        };
        out.push(RegionRow {
            info,
            daughters,
            merge_parents,
            state,
            server,
        });
    }
    Ok(out)
}

/// The namespaces every catalog starts with.
pub fn builtin_namespaces() -> [NamespaceDescriptor; 2] {
    [
        NamespaceDescriptor::new(DEFAULT_NAMESPACE),
        NamespaceDescriptor::new(SYSTEM_NAMESPACE),
    ]
}
