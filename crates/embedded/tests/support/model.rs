//! The model test's oracle and operation language.
//!
//! The oracle stores everything ever written, as HBase's memstore does (nothing is flushed or
//! compacted yet, so nothing is physically dropped), in
//! `BTreeMap<row, BTreeMap<family, BTreeMap<qualifier, BTreeMap<ts, versions>>>>` plus the
//! delete markers of each row and family, and answers reads declaratively: filter the versions
//! of a column by each rule, then take. The engine answers the same reads in one streaming
//! pass; the two must agree cell for cell, sequence ids included.

use std::collections::{BTreeMap, BTreeSet};

use basalt_embedded::{
    Bytes, Cell, CellType, ColumnFamilyDescriptor, Connection, Delete, Error, Get,
    KeepDeletedCells, ManualClock, Put, RowResult, Scan, Table, TableDescriptor, TimeRange,
};
use std::sync::Arc;

use basalt_fs::MemFs;

pub mod filter;
mod write_order;

use filter::ModelFilter;

pub type Row = Vec<u8>;

/// A family's retention settings.
#[derive(Debug, Clone)]
pub struct FamilySpec {
    pub max_versions: u32,
    pub min_versions: u32,
    pub ttl_seconds: Option<u32>,
    pub kdc: KeepDeletedCells,
    /// NEW_VERSION_BEHAVIOR (only without KEEP_DELETED_CELLS).
    pub nvb: bool,
}

/// Family names by index; sorted, so index order is the engine's family order.
pub const FAMILIES: [&str; 2] = ["f1", "f2"];

/// Which families and columns a read asks for: empty = everything; `None` = whole family.
pub type ColSpec = Vec<(usize, Option<Vec<Row>>)>;

#[derive(Debug, Clone)]
pub struct ScanSpec {
    pub start: Row,
    pub include_start: bool,
    pub stop: Row,
    pub include_stop: bool,
    pub reversed: bool,
    pub cols: ColSpec,
    pub time_range: Option<(i64, i64)>,
    pub versions: u32,
    pub limit: Option<usize>,
    pub batch: Option<usize>,
    pub raw: bool,
    pub caching: usize,
    pub filter: Option<ModelFilter>,
}

#[derive(Debug, Clone)]
pub enum Op {
    Put {
        row: Row,
        ts: Option<i64>,
        ttl_ms: Option<u64>,
        cells: Vec<(usize, Row, Option<i64>, Row)>,
    },
    /// No entries: the whole row.
    Delete {
        row: Row,
        ts: Option<i64>,
        entries: Vec<(usize, Row, Option<i64>, CellType)>,
    },
    Get {
        row: Row,
        cols: ColSpec,
        time_range: Option<(i64, i64)>,
        versions: u32,
    },
    Scan(ScanSpec),
    Advance(i64),
    /// Writes the memstores to a new store file (nothing is dropped, so the oracle ignores it).
    Flush,
    /// Closes the connection and opens its data directory again (close flushes everything).
    Reopen,
    /// A minor compaction: files merged, every cell kept (so the oracle ignores it).
    Compact,
    /// A major compaction: the oracle drops from what was flushed what HBase's major
    /// compaction drops.
    MajorCompact,
    /// Flushes the table, then splits the region holding the row there, or, with None, every
    /// region at its split point as automatic splits do (refused, and ignored, when the row
    /// starts a region, a region has no split point or still has references).
    Split(Option<Row>),
    /// Flushes the table, then merges the `n`th region with the next (ignored when there is
    /// no next, or one has references).
    Merge(usize),
    /// Disables the table (which flushes it), checks it refuses a read, enables it.
    DisableEnable,
    /// Adds to the counter `n` of each family given (the last amount for a family repeated).
    Increment {
        row: Row,
        cols: Vec<(usize, i64)>,
    },
    /// Appends bytes to columns.
    Append {
        row: Row,
        cols: Vec<(usize, Row, Row)>,
    },
    /// Puts one cell if a column compares as asked with an expected value.
    CheckAndPut {
        row: Row,
        check: (usize, Row),
        op: basalt_embedded::CompareOperator,
        expected: Row,
        put: (usize, Row, Row),
    },
}

#[derive(Debug, Clone)]
struct Version {
    seq: u64,
    value: Row,
    ttl_ms: Option<u64>,
}

#[derive(Debug, Clone)]
struct Marker {
    qualifier: Row,
    ts: i64,
    kind: CellType,
    seq: u64,
}

type Columns = BTreeMap<Row, BTreeMap<i64, Vec<Version>>>;

/// The brute-force reference.
#[derive(Debug)]
pub struct Oracle {
    families: Vec<FamilySpec>,
    data: BTreeMap<Row, BTreeMap<usize, Columns>>,
    markers: BTreeMap<Row, BTreeMap<usize, Vec<Marker>>>,
    seq: u64,
    /// Every write with a sequence id up to this one is in store files (a flush moves the
    /// whole memstore); major compactions touch only those.
    flushed_seq: u64,
    pub now: i64,
    /// Rows whose server timestamps ran ahead of the clock, and how far: the next server
    /// stamp of the row is at least this (docs/design/data-model.md, "Server timestamps").
    floor: BTreeMap<Row, i64>,
    /// Cells of NEW_VERSION_BEHAVIOR families a major compaction dropped, as (row, family,
    /// qualifier, timestamp, type code, sequence id): kept for reads by the order of writes
    /// (which they cannot change), gone for raw reads.
    dropped: BTreeSet<(Row, usize, Row, i64, u8, u64)>,
    /// Of those, the puts dropped because they had expired beyond MIN_VERSIONS (counted
    /// without a time range): gone for every read, as a read with a time range that would
    /// have counted them within MIN_VERSIONS no longer finds them.
    expired: BTreeSet<(Row, usize, Row, i64, u64)>,
}

/// One cell to return, before it becomes a [`Cell`].
#[derive(Debug, Clone)]
struct Candidate {
    ts: i64,
    kind: CellType,
    seq: u64,
    qualifier: Row,
    value: Row,
    ttl_ms: Option<u64>,
}

impl Oracle {
    pub fn new(families: Vec<FamilySpec>, now: i64) -> Self {
        Oracle {
            families,
            data: BTreeMap::new(),
            markers: BTreeMap::new(),
            seq: 0,
            flushed_seq: 0,
            now,
            floor: BTreeMap::new(),
            dropped: BTreeSet::new(),
            expired: BTreeSet::new(),
        }
    }

    /// The time the server stamps a write of `row` with.
    pub fn row_now(&self, row: &Row) -> i64 {
        self.floor.get(row).map_or(self.now, |&f| f.max(self.now))
    }

    /// The server restarted: it no longer knows which rows ran ahead of the clock.
    pub fn restarted(&mut self) {
        self.floor.clear();
    }

    /// The server stamped a write of `row` at `ts`.
    pub fn note_stamp(&mut self, row: &Row, ts: i64) {
        if ts > self.now {
            let floor = self.floor.entry(row.clone()).or_insert(ts);
            *floor = (*floor).max(ts);
        }
    }

    fn resolve(&self, row: &Row, ts: Option<i64>) -> i64 {
        ts.unwrap_or(self.row_now(row))
    }

    pub fn put(
        &mut self,
        row: &Row,
        ts: Option<i64>,
        ttl_ms: Option<u64>,
        cells: &[(usize, Row, Option<i64>, Row)],
    ) {
        self.seq += 1;
        for (f, q, cell_ts, value) in cells {
            let ts = self.resolve(row, cell_ts.or(ts));
            let versions = self
                .data
                .entry(row.clone())
                .or_default()
                .entry(*f)
                .or_default()
                .entry(q.clone())
                .or_default()
                .entry(ts)
                .or_default();
            // Identical coordinates within one mutation: the later cell replaces the earlier.
            versions.retain(|v| v.seq != self.seq);
            versions.push(Version {
                seq: self.seq,
                value: value.clone(),
                ttl_ms,
            });
        }
    }

    pub fn delete(
        &mut self,
        row: &Row,
        ts: Option<i64>,
        entries: &[(usize, Row, Option<i64>, CellType)],
    ) {
        let mut new = Vec::new();
        let now = self.row_now(row);
        if entries.is_empty() {
            for f in 0..self.families.len() {
                new.push((f, Vec::new(), self.resolve(row, ts), CellType::DeleteFamily));
            }
        }
        for (i, (f, q, e_ts, kind)) in entries.iter().enumerate() {
            let ts = match (e_ts.or(ts), kind) {
                (None, CellType::Delete) => {
                    let k = 1 + entries[..i]
                        .iter()
                        .filter(|p| {
                            p.3 == CellType::Delete
                                && p.2.or(ts).is_none()
                                && p.0 == *f
                                && p.1 == *q
                        })
                        .count();
                    let newest = self.read_column(row, *f, q, TimeRange::ALL, k as u32);
                    newest.get(k - 1).map_or(now, |c| c.ts)
                }
                (t, _) => self.resolve(row, t),
            };
            new.push((*f, q.clone(), ts, *kind));
        }
        // A marker at the server's time: later server stamps of the row go one past it.
        if new.iter().any(|m| m.2 == now) {
            self.note_stamp(row, now + 1);
        }
        self.seq += 1;
        for (f, qualifier, ts, kind) in new {
            let markers = self
                .markers
                .entry(row.clone())
                .or_default()
                .entry(f)
                .or_default();
            // Identical markers within one mutation collapse, as identical keys do.
            markers.retain(|m| {
                !(m.seq == self.seq && m.qualifier == qualifier && m.ts == ts && m.kind == kind)
            });
            markers.push(Marker {
                qualifier,
                ts,
                kind,
                seq: self.seq,
            });
        }
    }

    /// Everything written so far is now in store files.
    pub fn flushed(&mut self) {
        self.flushed_seq = self.seq;
    }

    /// HBase's major compaction of the flushed cells: delete markers go (they stay with
    /// KEEP_DELETED_CELLS TRUE, and with TTL until they expire), masked puts go (unless
    /// KEEP_DELETED_CELLS), a repeat of a kept (timestamp, type) goes, and of each column's
    /// remaining puts only the newest VERSIONS stay, and expired ones beyond MIN_VERSIONS go.
    pub fn major_compact(&mut self) {
        let rows: Vec<Row> = self
            .data
            .keys()
            .chain(self.markers.keys())
            .cloned()
            .collect();
        for row in rows {
            for f in 0..self.families.len() {
                self.major_compact_family(&row, f);
            }
        }
    }

    fn major_compact_family(&mut self, row: &Row, f: usize) {
        let spec = self.families[f].clone();
        if spec.nvb {
            self.major_compact_by_write_order(row, f);
            return;
        }
        let oldest = self.oldest_unexpired(f);
        let flushed = self.flushed_seq;
        let markers: Vec<Marker> = self
            .markers_of(row, f)
            .iter()
            .filter(|m| m.seq <= flushed)
            .cloned()
            .collect();
        let masked = |q: &Row, ts: i64| {
            markers.iter().any(|m| match m.kind {
                CellType::DeleteFamily => ts <= m.ts,
                CellType::DeleteFamilyVersion => ts == m.ts,
                CellType::DeleteColumn => m.qualifier == *q && ts <= m.ts,
                _ => m.qualifier == *q && ts == m.ts,
            })
        };
        let marker_kept = |ts: i64| match spec.kdc {
            KeepDeletedCells::True => true,
            KeepDeletedCells::Ttl => ts >= oldest,
            KeepDeletedCells::False => false,
        };
        // (qualifier, ts, type, seq) of every flushed cell kept.
        let mut kept: BTreeSet<(Row, i64, u8, u64)> = BTreeSet::new();
        let mut qualifiers: BTreeSet<Row> = markers.iter().map(|m| m.qualifier.clone()).collect();
        if let Some(cols) = self.columns_of(row, f) {
            qualifiers.extend(cols.keys().cloned());
        }
        for q in qualifiers {
            // The column's flushed cells in store order: timestamp, type, sequence id, all
            // descending.
            let mut cells: Vec<(i64, CellType, u64, Option<u64>)> = markers
                .iter()
                .filter(|m| m.qualifier == q)
                .map(|m| (m.ts, m.kind, m.seq, None))
                .collect();
            if let Some(column) = self.columns_of(row, f).and_then(|c| c.get(&q)) {
                for (ts, vs) in column {
                    cells.extend(
                        vs.iter()
                            .filter(|v| v.seq <= flushed)
                            .map(|v| (*ts, CellType::Put, v.seq, v.ttl_ms)),
                    );
                }
            }
            cells.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2)));
            let mut last: Option<(i64, CellType)> = None;
            let mut versions = 0;
            for (ts, kind, seq, ttl) in cells {
                if last == Some((ts, kind)) {
                    continue;
                }
                let keep = if kind.is_delete() {
                    marker_kept(ts)
                } else if ttl.is_some_and(|t| ts + t as i64 - self.now < 0)
                    || (masked(&q, ts) && spec.kdc == KeepDeletedCells::False)
                {
                    false
                } else {
                    versions += 1;
                    versions <= spec.max_versions && (ts >= oldest || versions <= spec.min_versions)
                };
                if keep {
                    kept.insert((q.clone(), ts, kind.code(), seq));
                    last = Some((ts, kind));
                }
            }
        }
        if let Some(columns) = self.data.get_mut(row).and_then(|d| d.get_mut(&f)) {
            for (q, by_ts) in columns.iter_mut() {
                for (ts, versions) in by_ts.iter_mut() {
                    versions.retain(|v| {
                        v.seq > flushed
                            || kept.contains(&(q.clone(), *ts, CellType::Put.code(), v.seq))
                    });
                }
                by_ts.retain(|_, v| !v.is_empty());
            }
            columns.retain(|_, c| !c.is_empty());
        }
        if let Some(ms) = self.markers.get_mut(row).and_then(|m| m.get_mut(&f)) {
            ms.retain(|m| {
                m.seq > flushed || kept.contains(&(m.qualifier.clone(), m.ts, m.kind.code(), m.seq))
            });
        }
    }

    fn markers_of(&self, row: &Row, f: usize) -> &[Marker] {
        self.markers
            .get(row)
            .and_then(|m| m.get(&f))
            .map_or(&[], Vec::as_slice)
    }

    fn columns_of(&self, row: &Row, f: usize) -> Option<&Columns> {
        self.data.get(row).and_then(|d| d.get(&f))
    }

    fn oldest_unexpired(&self, f: usize) -> i64 {
        match self.families[f].ttl_seconds {
            Some(s) => self.now - i64::from(s) * 1000,
            None => i64::MIN,
        }
    }

    /// The versions of one column a normal (non-raw) read returns.
    fn read_column(
        &self,
        row: &Row,
        f: usize,
        q: &Row,
        tr: TimeRange,
        versions: u32,
    ) -> Vec<Candidate> {
        let spec = &self.families[f];
        if spec.nvb {
            return self.read_column_by_write_order(row, f, q, tr, versions);
        }
        let max = versions.min(spec.max_versions);
        let oldest = self.oldest_unexpired(f);
        let see_past = spec.kdc != KeepDeletedCells::False;
        let markers: Vec<&Marker> = self
            .markers_of(row, f)
            .iter()
            .filter(|m| m.kind.is_family_delete() || m.qualifier == *q)
            .filter(|m| {
                if see_past {
                    tr.contains(m.ts)
                } else {
                    tr.contains_or_after(m.ts)
                }
            })
            .collect();
        let masked = |ts: i64| {
            markers.iter().any(|m| match m.kind {
                CellType::DeleteFamily | CellType::DeleteColumn => ts <= m.ts,
                _ => ts == m.ts,
            })
        };
        let Some(column) = self.columns_of(row, f).and_then(|c| c.get(q)) else {
            return Vec::new();
        };
        let mut seen_ts = BTreeSet::new();
        let survivors = column
            .iter()
            .rev()
            .flat_map(|(ts, vs)| vs.iter().rev().map(move |v| (*ts, v)))
            .filter(|(ts, v)| v.ttl_ms.is_none_or(|t| ts + t as i64 >= self.now))
            .filter(|(ts, _)| !masked(*ts))
            .filter(|(ts, _)| tr.contains(*ts))
            .filter(|(ts, _)| spec.min_versions > 0 || *ts >= oldest)
            .filter(|(ts, _)| seen_ts.insert(*ts));
        let mut out = Vec::new();
        for (rank, (ts, v)) in (1..).zip(survivors) {
            if rank > max || !(rank <= spec.min_versions || ts >= oldest) {
                break;
            }
            out.push(Candidate {
                ts,
                kind: CellType::Put,
                seq: v.seq,
                qualifier: q.clone(),
                value: v.value.clone(),
                ttl_ms: v.ttl_ms,
            });
        }
        out
    }

    /// The cells of one column a raw read returns: puts and markers, HBase-ordered.
    fn read_column_raw(
        &self,
        row: &Row,
        f: usize,
        q: &Row,
        tr: TimeRange,
        versions: u32,
    ) -> Vec<Candidate> {
        let mut all: Vec<Candidate> = self
            .markers_of(row, f)
            .iter()
            .filter(|m| m.qualifier == *q)
            .map(|m| Candidate {
                ts: m.ts,
                kind: m.kind,
                seq: m.seq,
                qualifier: q.clone(),
                value: Vec::new(),
                ttl_ms: None,
            })
            .collect();
        if let Some(column) = self.columns_of(row, f).and_then(|c| c.get(q)) {
            for (ts, vs) in column {
                for v in vs {
                    all.push(Candidate {
                        ts: *ts,
                        kind: CellType::Put,
                        seq: v.seq,
                        qualifier: q.clone(),
                        value: v.value.clone(),
                        ttl_ms: v.ttl_ms,
                    });
                }
            }
        }
        all.retain(|c| {
            !self
                .dropped
                .contains(&(row.clone(), f, q.clone(), c.ts, c.kind.code(), c.seq))
        });
        all.sort_by(|a, b| {
            b.ts.cmp(&a.ts)
                .then(b.kind.cmp(&a.kind))
                .then(b.seq.cmp(&a.seq))
        });
        let mut out: Vec<Candidate> = Vec::new();
        let mut puts = 0;
        for c in all {
            if c.ttl_ms.is_some_and(|t| c.ts + t as i64 - self.now < 0) || !tr.contains(c.ts) {
                continue;
            }
            if out.last().is_some_and(|l| l.ts == c.ts && l.kind == c.kind) {
                continue;
            }
            if c.kind == CellType::Put {
                puts += 1;
            }
            if puts > versions {
                break;
            }
            out.push(c);
        }
        out
    }

    /// Every cell of `row` a read returns, in cell order.
    fn read_row(
        &self,
        row: &Row,
        cols: &ColSpec,
        tr: TimeRange,
        versions: u32,
        raw: bool,
    ) -> Vec<Cell> {
        let selection: Vec<(usize, Option<BTreeSet<Row>>)> = if cols.is_empty() {
            (0..self.families.len()).map(|f| (f, None)).collect()
        } else {
            let mut s: Vec<_> = cols
                .iter()
                .map(|(f, qs)| (*f, qs.as_ref().map(|q| q.iter().cloned().collect())))
                .collect();
            s.sort_by_key(|(f, _)| *f);
            s
        };
        let mut out = Vec::new();
        for (f, wanted) in selection {
            let mut qualifiers: BTreeSet<Row> = self
                .columns_of(row, f)
                .map(|c| c.keys().cloned().collect())
                .unwrap_or_default();
            if raw {
                qualifiers.extend(self.markers_of(row, f).iter().map(|m| m.qualifier.clone()));
            }
            for q in qualifiers {
                if wanted.as_ref().is_some_and(|w| !w.contains(&q)) {
                    continue;
                }
                let cands = if raw {
                    self.read_column_raw(row, f, &q, tr, versions)
                } else {
                    self.read_column(row, f, &q, tr, versions)
                };
                out.extend(cands.into_iter().map(|c| {
                    Cell::new(
                        row,
                        FAMILIES[f].as_bytes(),
                        &c.qualifier,
                        c.ts,
                        c.kind,
                        &c.value,
                    )
                    .with_seq_id(c.seq)
                    .with_ttl_ms(c.ttl_ms)
                }));
            }
        }
        out
    }

    pub fn get(&self, row: &Row, cols: &ColSpec, tr: TimeRange, versions: u32) -> Vec<Cell> {
        self.read_row(row, cols, tr, versions, false)
    }

    /// The newest visible cell of a column: what a read-modify-write reads.
    pub fn newest(&self, row: &Row, family: usize, qualifier: &Row) -> Option<Cell> {
        let cols = vec![(family, Some(vec![qualifier.clone()]))];
        self.get(row, &cols, TimeRange::ALL, 1).into_iter().next()
    }

    /// The timestamp a read-modify-write stamps its new cell with: one past the cell it
    /// read, or now if later (HBase's `reckonDelta`).
    pub fn rmw_timestamp(&self, row: &Row, current: Option<&Cell>) -> i64 {
        let now = self.row_now(row);
        current.map_or(now, |c| now.max(c.timestamp + 1))
    }

    pub fn scan(&self, s: &ScanSpec) -> Vec<RowResult> {
        let tr = to_range(s.time_range);
        let mut rows: BTreeSet<&Row> = self.data.keys().collect();
        rows.extend(self.markers.keys());
        let mut ordered: Vec<&Row> = rows.into_iter().collect();
        if s.reversed {
            ordered.reverse();
        }
        let after_start = |r: &Row| {
            if s.start.is_empty() {
                return true;
            }
            let ord = r.cmp(&s.start);
            let inside = if s.reversed { ord.is_lt() } else { ord.is_gt() };
            inside || (ord.is_eq() && s.include_start)
        };
        let before_stop = |r: &Row| {
            if s.stop.is_empty() {
                return true;
            }
            let ord = r.cmp(&s.stop);
            let inside = if s.reversed { ord.is_gt() } else { ord.is_lt() };
            inside || (ord.is_eq() && s.include_stop)
        };
        let mut out = Vec::new();
        let mut rows_left = s.limit.unwrap_or(usize::MAX);
        for r in ordered
            .into_iter()
            .filter(|r| after_start(r) && before_stop(r))
        {
            if rows_left == 0 {
                break;
            }
            let cells = match &s.filter {
                // A filter is shown every version the family keeps.
                Some(f) => f.apply(
                    r,
                    self.read_row(r, &s.cols, tr, u32::MAX, s.raw),
                    s.versions,
                ),
                None => self.read_row(r, &s.cols, tr, s.versions, s.raw),
            };
            if cells.is_empty() {
                continue;
            }
            rows_left -= 1;
            let batch = s.batch.unwrap_or(usize::MAX);
            let n = cells.len().div_ceil(batch);
            for (i, chunk) in cells.chunks(batch.min(cells.len())).enumerate() {
                out.push(RowResult {
                    row: Bytes::from(r.clone()),
                    cells: chunk.to_vec(),
                    partial: i + 1 < n,
                });
            }
        }
        out
    }
}

pub fn to_range(tr: Option<(i64, i64)>) -> TimeRange {
    tr.map_or(TimeRange::ALL, |(a, b)| TimeRange::new(a, b))
}

/// The engine under test, driven by the same operations.
pub struct Engine {
    pub conn: Connection,
    pub table: Table,
    pub clock: Arc<ManualClock>,
    /// The in-memory file system the data directory lives on, kept across reopens.
    pub fs: Arc<MemFs>,
}

impl Engine {
    pub fn new(families: &[FamilySpec], splits: &[Row], now: i64) -> Self {
        let clock = Arc::new(ManualClock::new(now));
        let fs = Arc::new(MemFs::new());
        let conn = Engine::connect(&fs, &clock);
        let mut desc = TableDescriptor::named("model").expect("name");
        for (name, f) in FAMILIES.iter().zip(families) {
            let mut cf = ColumnFamilyDescriptor::new(*name)
                .with_max_versions(f.max_versions)
                .with_min_versions(f.min_versions)
                .with_keep_deleted_cells(f.kdc);
            cf.new_version_behavior = f.nvb;
            if let Some(s) = f.ttl_seconds {
                cf = cf.with_ttl_seconds(s);
            }
            desc.add_family(cf);
        }
        let splits: Vec<Bytes> = splits.iter().map(|s| Bytes::from(s.clone())).collect();
        conn.admin()
            .create_table_with_splits(desc, &splits)
            .expect("create model table");
        Engine {
            table: conn.table("model").expect("table"),
            conn,
            clock,
            fs,
        }
    }

    fn connect(fs: &Arc<MemFs>, clock: &Arc<ManualClock>) -> Connection {
        let fs: Arc<dyn basalt_fs::FileSystem> = fs.clone();
        Connection::builder()
            .clock(clock.clone())
            .file_system(fs)
            .root("/basalt")
            // A few cells per segment: memstores are frozen, flattened and merged in the
            // background all the time, racing the reads, flushes and reopens of the model.
            .in_memory_flush_size(1024)
            .open()
            .expect("open")
    }

    /// Closes the connection (which flushes everything) and opens the data directory again.
    pub fn reopen(&mut self) -> Result<(), String> {
        self.conn
            .close()
            .map_err(|e| format!("close failed: {e}"))?;
        self.conn = Engine::connect(&self.fs, &self.clock);
        self.table = self.conn.table("model").map_err(|e| e.to_string())?;
        Ok(())
    }
}

fn family(f: usize) -> &'static str {
    FAMILIES[f]
}

fn apply_cols_get(mut g: Get, cols: &ColSpec) -> Get {
    for (f, qs) in cols {
        match qs {
            None => g = g.add_family(family(*f)),
            Some(qs) => {
                for q in qs {
                    g = g.add_column(family(*f), q.clone());
                }
            }
        }
    }
    g
}

fn apply_cols_scan(mut s: Scan, cols: &ColSpec) -> Scan {
    for (f, qs) in cols {
        match qs {
            None => s = s.add_family(family(*f)),
            Some(qs) => {
                for q in qs {
                    s = s.add_column(family(*f), q.clone());
                }
            }
        }
    }
    s
}

/// Flushes every region of the table, and tells the oracle; returns an Admin and the name.
fn flush_all(
    engine: &Engine,
    oracle: &mut Oracle,
    i: usize,
) -> Result<(basalt_embedded::Admin, basalt_embedded::TableName), String> {
    let admin = engine.conn.admin();
    let name = engine.table.name().clone();
    admin
        .flush(&name)
        .map_err(|e| format!("op {i}: flush failed: {e}"))?;
    oracle.flushed();
    Ok((admin, name))
}

fn without_seq(cells: Vec<Cell>) -> Vec<Cell> {
    cells.into_iter().map(|c| c.with_seq_id(0)).collect()
}

/// Runs `ops` against both; returns a description of the first disagreement.
pub fn run(families: &[FamilySpec], splits: &[Row], ops: &[Op]) -> Result<(), String> {
    let start = 20;
    let mut engine = Engine::new(families, splits, start);
    let mut oracle = Oracle::new(families.to_vec(), start);
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Put {
                row,
                ts,
                ttl_ms,
                cells,
            } => {
                let mut p = Put::new(row.clone());
                if let Some(ts) = ts {
                    p = p.with_timestamp(*ts);
                }
                if let Some(t) = ttl_ms {
                    p = p.with_ttl_ms(*t);
                }
                for (f, q, cts, v) in cells {
                    p = match cts {
                        Some(t) => p.add_column_at(family(*f), q.clone(), *t, v.clone()),
                        None => p.add_column(family(*f), q.clone(), v.clone()),
                    };
                }
                engine
                    .table
                    .put(&p)
                    .map_err(|e| format!("op {i}: put failed: {e}"))?;
                oracle.put(row, *ts, *ttl_ms, cells);
            }
            Op::Delete { row, ts, entries } => {
                let mut d = Delete::new(row.clone());
                if let Some(ts) = ts {
                    d = d.with_timestamp(*ts);
                }
                for (f, q, ets, kind) in entries {
                    let fam = family(*f);
                    d = match (kind, ets) {
                        (CellType::DeleteFamily, None) => d.add_family(fam),
                        (CellType::DeleteFamily, Some(t)) => d.add_family_at(fam, *t),
                        (CellType::DeleteFamilyVersion, t) => {
                            d.add_family_version(fam, t.or(*ts).unwrap_or(0))
                        }
                        (CellType::DeleteColumn, None) => d.add_columns(fam, q.clone()),
                        (CellType::DeleteColumn, Some(t)) => d.add_columns_at(fam, q.clone(), *t),
                        (_, None) => d.add_column(fam, q.clone()),
                        (_, Some(t)) => d.add_column_at(fam, q.clone(), *t),
                    };
                }
                engine
                    .table
                    .delete(&d)
                    .map_err(|e| format!("op {i}: delete failed: {e}"))?;
                oracle.delete(row, *ts, entries);
            }
            Op::Get {
                row,
                cols,
                time_range,
                versions,
            } => {
                let mut g = apply_cols_get(Get::new(row.clone()), cols).read_versions(*versions);
                if let Some((a, b)) = time_range {
                    g = g.with_time_range(*a, *b);
                }
                let got = engine
                    .table
                    .get(&g)
                    .map_err(|e| format!("op {i}: get failed: {e}"))?;
                let want = without_seq(oracle.get(row, cols, to_range(*time_range), *versions));
                let got = RowResult {
                    cells: without_seq(got.cells),
                    ..got
                };
                if got.cells != want {
                    return Err(format!(
                        "op {i}: {op:?}\n engine: {:?}\n oracle: {want:?}",
                        got.cells
                    ));
                }
            }
            Op::Scan(s) => {
                let mut scan = apply_cols_scan(Scan::new(), &s.cols)
                    .with_start_row_inclusive(s.start.clone(), s.include_start)
                    .with_stop_row_inclusive(s.stop.clone(), s.include_stop)
                    .reversed(s.reversed)
                    .read_versions(s.versions)
                    .raw(s.raw)
                    .with_caching(s.caching);
                if let Some((a, b)) = s.time_range {
                    scan = scan.with_time_range(a, b);
                }
                if let Some(l) = s.limit {
                    scan = scan.with_limit(l);
                }
                if let Some(b) = s.batch {
                    scan = scan.with_batch(b);
                }
                if let Some(f) = &s.filter {
                    scan = scan.with_filter(f.spec());
                }
                let got: Vec<RowResult> = engine
                    .table
                    .scan(&scan)
                    .map_err(|e| format!("op {i}: scan failed: {e}"))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("op {i}: scan row failed: {e}"))?;
                // Sequence ids are per region: the oracle's single counter matches them only
                // while the table has one region, so they are left out of the comparison.
                let strip = |rows: Vec<RowResult>| -> Vec<RowResult> {
                    rows.into_iter()
                        .map(|r| RowResult {
                            cells: without_seq(r.cells),
                            ..r
                        })
                        .collect()
                };
                let (got, want) = (strip(got), strip(oracle.scan(s)));
                if got != want {
                    return Err(format!(
                        "op {i}: {op:?}\n engine: {got:?}\n oracle: {want:?}"
                    ));
                }
            }
            Op::Advance(ms) => {
                engine.clock.advance(*ms);
                oracle.now += ms;
            }
            Op::Reopen => {
                engine.reopen().map_err(|e| format!("op {i}: {e}"))?;
                oracle.flushed();
                // A restarted server has forgotten which rows ran ahead of the clock.
                oracle.restarted();
            }
            Op::MajorCompact => {
                let admin = engine.conn.admin();
                admin
                    .major_compact(engine.table.name())
                    .map_err(|e| format!("op {i}: major compact failed: {e}"))?;
                oracle.major_compact();
            }
            Op::Compact => {
                let admin = engine.conn.admin();
                admin
                    .compact(engine.table.name())
                    .map_err(|e| format!("op {i}: compact failed: {e}"))?;
            }
            Op::Flush => {
                flush_all(&engine, &mut oracle, i)?;
            }
            Op::Split(row) => {
                let (admin, name) = flush_all(&engine, &mut oracle, i)?;
                match admin.split(&name, row.as_deref()) {
                    Ok(()) | Err(Error::InvalidArgument(_) | Error::Refused(_)) => {}
                    Err(e) => return Err(format!("op {i}: split failed: {e}")),
                }
            }
            Op::Merge(n) => {
                let (admin, name) = flush_all(&engine, &mut oracle, i)?;
                let regions = admin.regions(&name).map_err(|e| e.to_string())?;
                if let (Some(a), Some(b)) = (regions.get(*n), regions.get(n + 1)) {
                    match admin.merge_regions(&a.name, &b.name) {
                        Ok(_) | Err(Error::Refused(_)) => {}
                        Err(e) => return Err(format!("op {i}: merge failed: {e}")),
                    }
                }
            }
            Op::Increment { row, cols } => {
                let mut inc = basalt_embedded::Increment::new(row.clone());
                for (f, amount) in cols {
                    inc = inc.add_column(family(*f), b"n".to_vec(), *amount);
                }
                let got = engine.table.increment(&inc);
                // The oracle: each family's counter read, the last amount per family.
                let last: BTreeMap<usize, i64> = cols.iter().copied().collect();
                let mut cells = Vec::new();
                let mut not_a_long = false;
                for (f, amount) in &last {
                    let current = oracle.newest(row, *f, &b"n".to_vec());
                    let old = match current.as_ref().map(|c| c.value()) {
                        None => 0,
                        Some(v) if v.len() == 8 => {
                            i64::from_be_bytes(v.try_into().unwrap_or_default())
                        }
                        Some(_) => {
                            not_a_long = true;
                            0
                        }
                    };
                    let ts = oracle.rmw_timestamp(row, current.as_ref());
                    cells.push((
                        *f,
                        b"n".to_vec(),
                        Some(ts),
                        old.wrapping_add(*amount).to_be_bytes().to_vec(),
                    ));
                }
                match (got, not_a_long) {
                    (Err(_), true) => {}
                    (Ok(r), false) => {
                        let want: Vec<Vec<u8>> = cells.iter().map(|c| c.3.clone()).collect();
                        let got: Vec<Vec<u8>> =
                            r.cells.iter().map(|c| c.value().to_vec()).collect();
                        if got != want {
                            return Err(format!(
                                "op {i}: {op:?}\n engine: {got:?}\n oracle: {want:?}"
                            ));
                        }
                        oracle.put(row, None, None, &cells);
                        for c in &cells {
                            oracle.note_stamp(row, c.2.unwrap_or_default());
                        }
                    }
                    (got, _) => {
                        return Err(format!(
                            "op {i}: {op:?}: engine {got:?}, oracle expected an error: {not_a_long}"
                        ));
                    }
                }
            }
            Op::Append { row, cols } => {
                let mut append = basalt_embedded::Append::new(row.clone());
                for (f, q, v) in cols {
                    append = append.add_column(family(*f), q.clone(), v.clone());
                }
                let got = engine
                    .table
                    .append(&append)
                    .map_err(|e| format!("op {i}: append failed: {e}"))?;
                let mut last: BTreeMap<(usize, Row), Row> = BTreeMap::new();
                for (f, q, v) in cols {
                    last.insert((*f, q.clone()), v.clone());
                }
                let mut cells = Vec::new();
                for ((f, q), tail) in &last {
                    let current = oracle.newest(row, *f, q);
                    let mut v = current
                        .as_ref()
                        .map_or_else(Vec::new, |c| c.value().to_vec());
                    v.extend_from_slice(tail);
                    cells.push((
                        *f,
                        q.clone(),
                        Some(oracle.rmw_timestamp(row, current.as_ref())),
                        v,
                    ));
                }
                let want: Vec<Vec<u8>> = cells.iter().map(|c| c.3.clone()).collect();
                let got: Vec<Vec<u8>> = got.cells.iter().map(|c| c.value().to_vec()).collect();
                if got != want {
                    return Err(format!(
                        "op {i}: {op:?}\n engine: {got:?}\n oracle: {want:?}"
                    ));
                }
                oracle.put(row, None, None, &cells);
                for c in &cells {
                    oracle.note_stamp(row, c.2.unwrap_or_default());
                }
            }
            Op::CheckAndPut {
                row,
                check,
                op: compare,
                expected,
                put,
            } => {
                let condition = basalt_embedded::Condition::matches(
                    family(check.0),
                    check.1.clone(),
                    *compare,
                    expected.clone(),
                );
                let action = basalt_embedded::CheckAction::Put(Put::new(row.clone()).add_column(
                    family(put.0),
                    put.1.clone(),
                    put.2.clone(),
                ));
                let got = engine
                    .table
                    .check_and_mutate(&basalt_embedded::CheckAndMutate::new(
                        row.clone(),
                        condition.clone(),
                        action,
                    ))
                    .map_err(|e| format!("op {i}: check and mutate failed: {e}"))?;
                let current = oracle.newest(row, check.0, &check.1);
                let holds = condition.holds(current.as_ref().map(|c| c.value()));
                if got.success != holds {
                    return Err(format!(
                        "op {i}: {op:?}: engine says {}, oracle {holds} (current {current:?})",
                        got.success
                    ));
                }
                if holds {
                    let now = oracle.row_now(row);
                    let stamp = now.max(current.map_or(now, |c| c.timestamp));
                    oracle.put(
                        row,
                        None,
                        None,
                        &[(put.0, put.1.clone(), Some(stamp), put.2.clone())],
                    );
                    oracle.note_stamp(row, stamp);
                }
            }
            Op::DisableEnable => {
                let admin = engine.conn.admin();
                let name = engine.table.name().clone();
                admin
                    .disable_table(&name)
                    .map_err(|e| format!("op {i}: disable failed: {e}"))?;
                oracle.flushed();
                if !matches!(
                    engine.table.get(&Get::new(b"a".to_vec())),
                    Err(Error::TableNotEnabled(_))
                ) {
                    return Err(format!("op {i}: a disabled table answered a get"));
                }
                admin
                    .enable_table(&name)
                    .map_err(|e| format!("op {i}: enable failed: {e}"))?;
            }
        }
    }
    Ok(())
}
