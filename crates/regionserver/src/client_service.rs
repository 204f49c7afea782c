//! ClientService (HBase's `RSRpcServices` for data): Get, Mutate, Scan and Multi, each run on
//! the online region the call names (`table,start,id.encoded.`, or its encoded name); reads
//! and scans stay inside it, so a client that walks the regions in `hbase:meta` sees every
//! row once.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::ops::{
    Append, Check, CheckAction, CheckAndMutate, Condition, Increment, RowMutations,
};
use basalt_common::{
    Bytes, Cell, CellType, Delete, Durability, Error, Get, LATEST_TIMESTAMP, Put, RowResult, Scan,
    TimeRange,
};
use basalt_net::{Leases, lock_leased};
use basalt_proto::cellblock::{self, KeyValue};
use basalt_proto::filters;
use basalt_proto::pb::{
    self, BinaryComparator, ExceptionResponse, GetRequest, GetResponse, MultiRequest,
    MultiResponse, MutateRequest, MutateResponse, NameBytesPair, RegionActionResult,
    ResultOrException, ScanRequest, ScanResponse, mutation_proto,
};
use basalt_proto::{RAW_ATTRIBUTE, TTL_ATTRIBUTE, decode, exception, from_error};
use basalt_region::{Region, RegionScanner};
use prost::Message;

use crate::RegionServer;
use crate::nonces::{NO_NONCE, Nonces, Start};

fn unsupported(what: &str) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!("{what} is not supported by Basalt's RPC yet"),
        true,
    )
}

type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// One open scanner.
struct Open {
    scanner: RegionScanner,
    /// Whether the scan can go on past this region (a later region exists in its direction
    /// and the scan's stop row lies beyond this region).
    more_after: bool,
    /// Bytes of cells after which a call's answer ends (at least one result goes back).
    max_result_size: Option<u64>,
}

/// ClientService for one server.
pub struct ClientService {
    /// The server whose online regions calls are served from.
    rs: Arc<RegionServer>,
    scanners: Leases<u64, Open>,
    /// Recently finished scanners: one more "next" on them gets an empty answer, as HBase
    /// gives (hbase-driver sends one).
    finished: Mutex<std::collections::VecDeque<u64>>,
    next_scanner: AtomicU64,
    /// Nonces of increments, appends and check-and-mutates recently run.
    nonces: Nonces,
}

impl std::fmt::Debug for ClientService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientService")
            .field("lease", &self.scanners.lease())
            .finish_non_exhaustive()
    }
}

/// A wire timestamp; Long.MAX_VALUE (LATEST_TIMESTAMP) means "none given": the server's time
/// for puts, the newest version for a one-version delete.
fn given(ts: Option<u64>) -> Option<i64> {
    ts.and_then(|t| i64::try_from(t).ok())
        .filter(|t| *t != LATEST_TIMESTAMP)
}

/// A mutation's cell TTL in milliseconds, from its `_ttl` attribute; an attribute of another
/// width, or a TTL that is not positive, is refused by name.
fn ttl_attribute(attributes: &[pb::NameBytesPair]) -> Result<Option<u64>, ExceptionResponse> {
    let Some(a) = attributes.iter().find(|a| a.name == TTL_ATTRIBUTE) else {
        return Ok(None);
    };
    let value = a.value.as_deref().unwrap_or_default();
    let ms = <[u8; 8]>::try_from(value)
        .map(i64::from_be_bytes)
        .ok()
        .and_then(|ms| u64::try_from(ms).ok())
        .filter(|&ms| ms > 0);
    match ms {
        Some(ms) => Ok(Some(ms)),
        None => Err(exception(
            "org.apache.hadoop.hbase.DoNotRetryIOException",
            format!(
                "the mutation attribute {TTL_ATTRIBUTE} must be a positive 8-byte long, got {value:?}"
            ),
            true,
        )),
    }
}

/// Per-family time ranges (HBase's `setColumnFamilyTimeRange`), as family -> [min, max).
fn family_time_ranges(ranges: &[pb::ColumnFamilyTimeRange]) -> Vec<(Bytes, i64, i64)> {
    ranges
        .iter()
        .map(|r| {
            let (from, to) = ts_range(Some(&r.time_range));
            (Bytes::copy_from_slice(&r.column_family), from, to)
        })
        .collect()
}

fn raw_attribute(attributes: &[pb::NameBytesPair]) -> bool {
    attributes.iter().any(|a| {
        a.name == RAW_ATTRIBUTE
            && a.value
                .as_deref()
                .is_some_and(|v| v.first().is_some_and(|b| *b != 0))
    })
}

fn ts_range(tr: Option<&pb::TimeRange>) -> (i64, i64) {
    let Some(tr) = tr else {
        return (0, i64::MAX);
    };
    let from = i64::try_from(tr.from.unwrap_or(0)).unwrap_or(i64::MAX);
    let to = tr
        .to
        .map_or(i64::MAX, |t| i64::try_from(t).unwrap_or(i64::MAX));
    (from, to)
}

fn durability(d: Option<i32>) -> Durability {
    use mutation_proto::Durability as D;
    match d.and_then(|d| D::try_from(d).ok()) {
        Some(D::SkipWal) => Durability::SkipWal,
        Some(D::AsyncWal) => Durability::AsyncWal,
        Some(D::SyncWal) => Durability::SyncWal,
        Some(D::FsyncWal) => Durability::FsyncWal,
        _ => Durability::UseDefault,
    }
}

fn cell_type(t: CellType) -> pb::CellType {
    match t {
        CellType::Put => pb::CellType::Put,
        CellType::Delete => pb::CellType::Delete,
        CellType::DeleteFamilyVersion => pb::CellType::DeleteFamilyVersion,
        CellType::DeleteColumn => pb::CellType::DeleteColumn,
        CellType::DeleteFamily => pb::CellType::DeleteFamily,
        CellType::Minimum => pb::CellType::Minimum,
        CellType::Maximum => pb::CellType::Maximum,
    }
}

fn result(cells: &[Cell], partial: bool) -> pb::Result {
    pb::Result {
        cell: cells
            .iter()
            .map(|c| pb::Cell {
                row: Some(c.row().to_vec()),
                family: Some(c.family().to_vec()),
                qualifier: Some(c.qualifier().to_vec()),
                timestamp: Some(c.timestamp as u64),
                cell_type: Some(cell_type(c.cell_type) as i32),
                value: Some(c.value().to_vec()),
                tags: None,
            })
            .collect(),
        partial: partial.then_some(true),
        ..pb::Result::default()
    }
}

/// The key range a region serves: `[start_key, end_key)`, an empty end meaning the table's end.
struct RegionKeys {
    name: Bytes,
    start_key: Bytes,
    end_key: Bytes,
}

/// A region this server does not serve: the client looks it up again.
fn not_serving(name: &[u8]) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.NotServingRegionException",
        format!("Region {} is not online", String::from_utf8_lossy(name)),
        false,
    )
}

impl RegionKeys {
    /// A row outside the region named in the call is the client's stale location: a
    /// NotServingRegionException, so it looks the row's region up again (HBase's region
    /// server refuses it too, where it serves only the regions it holds).
    fn holds(&self, row: &[u8]) -> Result<(), ExceptionResponse> {
        let inside =
            row >= &self.start_key[..] && (self.end_key.is_empty() || row < &self.end_key[..]);
        if inside {
            return Ok(());
        }
        Err(exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            format!(
                "Region {} does not hold row {}",
                String::from_utf8_lossy(&self.name),
                BinaryDisplay::new(row)
            ),
            false,
        ))
    }
}

impl ClientService {
    pub fn new(rs: Arc<RegionServer>, lease: Duration) -> Self {
        ClientService {
            rs,
            scanners: Leases::new(lease),
            finished: Mutex::new(std::collections::VecDeque::new()),
            next_scanner: AtomicU64::new(1),
            nonces: Nonces::default(),
        }
    }

    /// Runs `method`; `None` if ClientService has no such method. `cell_block` holds the
    /// cells of the call's mutations when the client sent them outside the message (empty
    /// otherwise; the server has checked the connection's codec).
    pub fn call(&self, method: &str, param: Option<&[u8]>, cell_block: &Bytes) -> Option<Outcome> {
        fn no_cells<R>(r: R, cell_block: &[u8]) -> Result<R, ExceptionResponse> {
            if cell_block.is_empty() {
                Ok(r)
            } else {
                Err(unsupported("a cell block on a call without mutations"))
            }
        }
        Some(match method {
            "Get" => decode::<GetRequest>(param)
                .and_then(|r| no_cells(r, cell_block))
                .and_then(|r| self.get(&r)),
            "Mutate" => decode::<MutateRequest>(param).and_then(|r| {
                let cells = cellblock::decode(cell_block)?;
                let dealt = dealt(cell_block, [Some(&r.mutation)], &cells)?;
                self.mutate(&r, share(&cells, &dealt, 0))
            }),
            "Scan" => decode::<ScanRequest>(param)
                .and_then(|r| no_cells(r, cell_block))
                .and_then(|r| self.scan(&r)),
            "Multi" => decode::<MultiRequest>(param).and_then(|r| {
                let cells = cellblock::decode(cell_block)?;
                let mutations = r
                    .region_action
                    .iter()
                    .flat_map(|ra| ra.action.iter().map(|a| a.mutation.as_ref()));
                let dealt = dealt(cell_block, mutations, &cells)?;
                self.multi(&r, &cells, &dealt)
            }),
            "BulkLoadHFile"
            | "PrepareBulkLoad"
            | "CleanupBulkLoad"
            | "ExecService"
            | "ExecRegionServerService" => Err(unsupported(method)),
            _ => return None,
        })
    }

    /// The online region a specifier names (by full or encoded region name, as HBase's
    /// clients name regions), and its start and end keys. A region this server does not
    /// serve is a NotServingRegionException, so the client looks it up again.
    fn region(
        &self,
        spec: Option<&pb::RegionSpecifier>,
    ) -> Result<(Arc<Region>, RegionKeys), ExceptionResponse> {
        let spec = spec.ok_or_else(|| unsupported("a call without a region"))?;
        let region = self
            .rs
            .region_named(&spec.value)
            .ok_or_else(|| not_serving(&spec.value))?;
        let info = region.info();
        let keys = RegionKeys {
            name: info.region_name(),
            start_key: info.start_key.clone(),
            end_key: info.end_key.clone(),
        };
        Ok((region, keys))
    }

    fn get(&self, req: &GetRequest) -> Outcome {
        let (table, region) = self.region(Some(&req.region))?;
        let g = &req.get;
        region.holds(&g.row)?;
        let mut get = Get::new(Bytes::copy_from_slice(&g.row));
        if let Some(f) = &g.filter {
            get = get.with_filter(filters::filter(f).map_err(|e| bad_filter(&e))?);
        }
        for c in &g.column {
            if c.qualifier.is_empty() {
                get = get.add_family(Bytes::copy_from_slice(&c.family));
            }
            for q in &c.qualifier {
                get = get.add_column(Bytes::copy_from_slice(&c.family), Bytes::copy_from_slice(q));
            }
        }
        let (from, to) = ts_range(g.time_range.as_ref());
        for (family, min, max) in family_time_ranges(&g.cf_time_range) {
            get = get.with_family_time_range(family, min, max);
        }
        get = get
            .with_time_range(from, to)
            .read_versions(g.max_versions().max(1))
            .with_cache_blocks(g.cache_blocks());
        let row = table.get(&get).map_err(|e| from_error(&e))?;
        let mut res = result(&row.cells, false);
        if g.existence_only() {
            res = pb::Result {
                exists: Some(!row.cells.is_empty()),
                ..pb::Result::default()
            };
        }
        Ok(GetResponse { result: Some(res) }.encode_to_vec())
    }

    /// Mutate; `cells` are the mutation's share of the call's cell block. An increment,
    /// append or check-and-mutate with a nonce runs at most once (`crate::nonces`).
    fn mutate(&self, req: &MutateRequest, cells: &[KeyValue]) -> Outcome {
        let (table, region) = self.region(Some(&req.region))?;
        let (row, action) = action(&req.mutation, cells)?;
        region.holds(&row)?;
        let response = |result: Option<RowResult>, processed: Option<bool>| {
            MutateResponse {
                result: result.map(|r| result_of(&r)),
                processed,
            }
            .encode_to_vec()
        };
        let nonce = Nonce::of(
            req.nonce_group,
            &req.mutation,
            &action,
            req.condition.is_some(),
        );
        if let Start::AlreadyDone { applied } = self.nonces.start(nonce.group, nonce.nonce) {
            let result = current(&table, &action)?;
            return Ok(if req.condition.is_some() {
                response(result.filter(|_| applied), Some(applied))
            } else {
                response(result, None)
            });
        }
        let outcome = self.mutate_once(&table, row, action, req.condition.as_ref());
        self.nonces.finish(
            nonce.group,
            nonce.nonce,
            outcome
                .as_ref()
                .ok()
                .map(|(_, processed)| processed.unwrap_or(true)),
        );
        let (result, processed) = outcome?;
        Ok(response(result, processed))
    }

    /// Applies a Mutate's operation (under its condition, if any): its result and
    /// `processed` flag.
    fn mutate_once(
        &self,
        table: &Region,
        row: Bytes,
        action: CheckAction,
        condition: Option<&pb::Condition>,
    ) -> Result<(Option<RowResult>, Option<bool>), ExceptionResponse> {
        if let Some(c) = condition {
            let cam = CheckAndMutate {
                row,
                check: check(c)?,
                action,
            };
            let out = table.check_and_mutate(&cam).map_err(|e| from_error(&e))?;
            return Ok((out.result, Some(out.success)));
        }
        // As HBase: an applied Put or Delete says so; an Increment or Append answers with its
        // cells instead.
        let plain = matches!(action, CheckAction::Put(_) | CheckAction::Delete(_));
        Ok((apply(table, action)?, plain.then_some(true)))
    }

    /// Multi: each region action's actions in order, a result or an exception each; an atomic
    /// region action is one row's mutations applied together (with the request's condition,
    /// a check-and-mutate). `dealt` gives each action's share of `cells`, the call's cell
    /// block, counting actions across region actions in order.
    fn multi(&self, req: &MultiRequest, cells: &[KeyValue], dealt: &[Range<usize>]) -> Outcome {
        let mut out = MultiResponse::default();
        // The number of the region action's first action, over the whole call.
        let mut first = 0;
        for ra in &req.region_action {
            let mut result = RegionActionResult::default();
            let base = first;
            let share = move |k: usize| share(cells, dealt, base + k);
            first += ra.action.len();
            match self.region(Some(&ra.region)) {
                Err(e) => result.exception = Some(as_pair(&e)),
                Ok((table, region)) if ra.atomic() || ra.condition.is_some() => {
                    let condition = ra.condition.as_ref().or(req.condition.as_ref());
                    match self.atomic(&table, &region, ra, share, condition) {
                        Ok((processed, results)) => {
                            // HBase 2.4+ answers in the region action's result; older
                            // clients read the response's flag.
                            result.processed = Some(processed);
                            out.processed = Some(processed);
                            for (k, a) in ra.action.iter().enumerate() {
                                let r = results.get(k).map(result_of).unwrap_or_default();
                                result.result_or_exception.push(ResultOrException {
                                    index: a.index,
                                    result: Some(r),
                                    exception: None,
                                });
                            }
                        }
                        Err(e) => result.exception = Some(as_pair(&e)),
                    }
                }
                Ok((table, region)) => {
                    for (k, a) in ra.action.iter().enumerate() {
                        let outcome = match (&a.get, &a.mutation) {
                            (Some(g), _) => self
                                .get(&GetRequest {
                                    region: ra.region.clone(),
                                    get: g.clone(),
                                })
                                .and_then(|bytes| {
                                    GetResponse::decode(&bytes[..])
                                        .map(|r| r.result.unwrap_or_default())
                                        .map_err(|e| unsupported(&e.to_string()))
                                }),
                            (None, Some(m)) => action(m, share(k))
                                .and_then(|(row, op)| {
                                    region.holds(&row)?;
                                    let nonce = Nonce::of(req.nonce_group, m, &op, false);
                                    self.once(&table, op, nonce)
                                })
                                .map(|r| r.map(|r| result_of(&r)).unwrap_or_default()),
                            (None, None) => Err(unsupported("an empty action")),
                        };
                        result.result_or_exception.push(match outcome {
                            Ok(r) => ResultOrException {
                                index: a.index,
                                result: Some(r),
                                exception: None,
                            },
                            Err(e) => ResultOrException {
                                index: a.index,
                                result: None,
                                exception: Some(as_pair(&e)),
                            },
                        });
                    }
                }
            }
            out.region_action_result.push(result);
        }
        Ok(out.encode_to_vec())
    }

    /// Applies one operation of a Multi, at most once when it carries a nonce.
    fn once(
        &self,
        table: &Region,
        op: CheckAction,
        nonce: Nonce,
    ) -> Result<Option<RowResult>, ExceptionResponse> {
        if let Start::AlreadyDone { .. } = self.nonces.start(nonce.group, nonce.nonce) {
            return current(table, &op);
        }
        let outcome = apply(table, op);
        let done = outcome.as_ref().ok().map(|_| true);
        self.nonces.finish(nonce.group, nonce.nonce, done);
        outcome
    }

    /// One region action's mutations as one row's atomic mutation; with a condition, only if
    /// it holds. Returns whether it was applied and each action's result (an increment's or
    /// append's new cells, empty for the others).
    fn atomic<'a>(
        &self,
        table: &Region,
        region: &RegionKeys,
        ra: &pb::RegionAction,
        share: impl Fn(usize) -> &'a [KeyValue],
        condition: Option<&pb::Condition>,
    ) -> Result<(bool, Vec<RowResult>), ExceptionResponse> {
        let mut row: Option<Bytes> = None;
        let mut rm: Option<RowMutations> = None;
        for (k, a) in ra.action.iter().enumerate() {
            let m = a
                .mutation
                .as_ref()
                .ok_or_else(|| unsupported("a Get in an atomic region action"))?;
            let (r, op) = action(m, share(k))?;
            if row.as_ref().is_some_and(|x| *x != r) {
                return Err(exception(
                    "org.apache.hadoop.hbase.DoNotRetryIOException",
                    "an atomic region action must be one row's mutations".into(),
                    true,
                ));
            }
            let mutations = rm.take().unwrap_or_else(|| RowMutations::new(r.clone()));
            row = Some(r);
            rm = Some(match op {
                CheckAction::Put(p) => mutations.add_put(p),
                CheckAction::Delete(d) => mutations.add_delete(d),
                CheckAction::Increment(i) => mutations.add_increment(i),
                CheckAction::Append(a) => mutations.add_append(a),
                CheckAction::RowMutations(_) => {
                    return Err(unsupported("row mutations inside row mutations"));
                }
            });
        }
        let (Some(row), Some(rm)) = (row, rm) else {
            return Ok((true, Vec::new()));
        };
        region.holds(&row)?;
        match condition {
            Some(c) => {
                let cam = CheckAndMutate {
                    row,
                    check: check(c)?,
                    action: CheckAction::RowMutations(rm),
                };
                let out = table.check_and_mutate(&cam).map_err(|e| from_error(&e))?;
                Ok((out.success, Vec::new()))
            }
            None => {
                let results = table.mutate_row(&rm).map_err(|e| from_error(&e))?;
                Ok((true, results))
            }
        }
    }

    fn scan(&self, req: &ScanRequest) -> Outcome {
        let id = match (req.scanner_id, &req.scan) {
            (Some(id), _) => id,
            (None, Some(scan)) => self.open(req, scan)?,
            (None, None) => return Err(unsupported("a scan request without a scan or scanner")),
        };
        // Any call on a scanner renews its lease.
        let entry = self.scanners.get(&id);
        let finished = || {
            self.finished
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&id)
        };
        if entry.is_none() && finished() {
            return Ok(ScanResponse {
                scanner_id: Some(id),
                more_results: Some(false),
                more_results_in_region: Some(false),
                ..ScanResponse::default()
            }
            .encode_to_vec());
        }
        let entry = entry.ok_or_else(|| {
                exception(
                    "org.apache.hadoop.hbase.UnknownScannerException",
                    format!("Unknown scanner '{id}'. This can happen due to any of the following reasons: the scanner expired or was closed"),
                    true,
                )
            })?;
        let mut results = Vec::new();
        let mut done = false;
        let mut filter_ended = false;
        let more_after = lock_leased(&entry).more_after;
        // A closing call still returns rows when it asks for some (an opening call that
        // closes at once is how clients read a few rows in one round trip).
        let wanted = req
            .number_of_rows
            .unwrap_or(if req.close_scanner() { 0 } else { 100 });
        // A renewal of an open scanner only extends its lease (an opening call that also says
        // `renew`, as hbase-driver sends, is an ordinary open).
        let renewal = req.renew() && req.scan.is_none();
        let wanted = if renewal { 0 } else { wanted };
        if wanted > 0 {
            let mut open = lock_leased(&entry);
            let n = wanted as usize;
            let mut bytes = 0u64;
            while results.len() < n && open.max_result_size.is_none_or(|max| bytes < max) {
                match open.scanner.next() {
                    Some(Ok(r)) => {
                        bytes += r
                            .cells
                            .iter()
                            .map(|c| c.serialized_size() as u64)
                            .sum::<u64>();
                        results.push(result(&r.cells, r.partial));
                    }
                    Some(Err(e)) => return Err(from_error(&e)),
                    None => {
                        done = true;
                        filter_ended = open.scanner.filter_ends_scan();
                        break;
                    }
                }
            }
        }
        if done || req.close_scanner() {
            self.scanners.remove(&id);
            let mut finished = self.finished.lock().unwrap_or_else(PoisonError::into_inner);
            finished.push_back(id);
            if finished.len() > 1024 {
                finished.pop_front();
            }
        }
        let open = !(done || req.close_scanner());
        // As HBase: the region being done is not the scan being done; the client goes on to
        // the next region while `more_results` says so. A filter that is done (WhileMatch,
        // InclusiveStop, ColumnCountGet) ends the whole scan, as HBase's reference says.
        Ok(ScanResponse {
            scanner_id: Some(id),
            more_results: Some(open || (done && more_after && !filter_ended)),
            more_results_in_region: Some(open),
            ttl: Some(u32::try_from(self.scanners.lease().as_millis()).unwrap_or(u32::MAX)),
            results,
            ..ScanResponse::default()
        }
        .encode_to_vec())
    }

    /// Opens a scanner over the part of `scan` inside the request's region.
    fn open(&self, req: &ScanRequest, s: &pb::Scan) -> Result<u64, ExceptionResponse> {
        let (table, region) = self.region(req.region.as_ref())?;
        let mut scan = Scan::new().reversed(s.reversed());
        if let Some(f) = &s.filter {
            scan = scan.with_filter(filters::filter(f).map_err(|e| bad_filter(&e))?);
        }
        for c in &s.column {
            if c.qualifier.is_empty() {
                scan = scan.add_family(Bytes::copy_from_slice(&c.family));
            }
            for q in &c.qualifier {
                scan =
                    scan.add_column(Bytes::copy_from_slice(&c.family), Bytes::copy_from_slice(q));
            }
        }
        let (from, to) = ts_range(s.time_range.as_ref());
        for (family, min, max) in family_time_ranges(&s.cf_time_range) {
            scan = scan.with_family_time_range(family, min, max);
        }
        // A limit on bytes per call; with partial results allowed, a larger row comes cut
        // into parts of about that size (HBase's `setMaxResultSize` and
        // `setAllowPartialResults`).
        let max_result_size = s.max_result_size.filter(|&b| b > 0);
        if let Some(bytes) = max_result_size {
            scan = scan
                .with_max_result_size(bytes)
                .with_allow_partial_results(s.allow_partial_results());
        }
        // HBase 2's client sends the rows still wanted with each region's open.
        if let Some(rows) = req.limit_of_rows.filter(|&r| r > 0) {
            scan = scan.with_limit(rows as usize);
        }
        scan = scan
            .with_time_range(from, to)
            .read_versions(s.max_versions().max(1))
            .with_cache_blocks(s.cache_blocks())
            .raw(raw_attribute(&s.attribute));
        if let Some(b) = s.batch_size.filter(|b| *b > 0) {
            scan = scan.with_batch(b as usize);
        }
        if let Some(c) = s.caching.filter(|c| *c > 0) {
            scan = scan.with_caching(c as usize);
        }
        // The scan's bounds, clamped to the region: a forward scan from the larger start to
        // the smaller stop; a reversed one from below the region's end (its start row is the
        // high end) down to the region's first row at most.
        let start = s.start_row.clone().unwrap_or_default();
        let stop = s.stop_row.clone().unwrap_or_default();
        if s.reversed() {
            let (high, high_inclusive) = if !region.end_key.is_empty()
                && (start.is_empty() || &region.end_key[..] <= start.as_slice())
            {
                (region.end_key.to_vec(), false)
            } else {
                (start, s.include_start_row())
            };
            let (low, low_inclusive) = if stop.as_slice() < &region.start_key[..] {
                (region.start_key.to_vec(), true)
            } else {
                (stop, s.include_stop_row())
            };
            scan = scan
                .with_start_row_inclusive(Bytes::from(high), high_inclusive)
                .with_stop_row_inclusive(Bytes::from(low), low_inclusive);
        } else {
            let start = if start.as_slice() < &region.start_key[..] {
                region.start_key.to_vec()
            } else {
                start
            };
            let (stop, inclusive) = if !region.end_key.is_empty()
                && (stop.is_empty() || &region.end_key[..] <= stop.as_slice())
            {
                (region.end_key.to_vec(), false)
            } else {
                (stop, s.include_stop_row())
            };
            scan = scan
                .with_start_row_inclusive(Bytes::from(start), s.include_start_row())
                .with_stop_row_inclusive(Bytes::from(stop), inclusive);
        }
        let more_after = if s.reversed() {
            !region.start_key.is_empty()
                && (s.stop_row.as_deref().unwrap_or_default().is_empty()
                    || s.stop_row.as_deref().unwrap_or_default() < &region.start_key[..])
        } else {
            !region.end_key.is_empty()
                && (s.stop_row.as_deref().unwrap_or_default().is_empty()
                    || &region.end_key[..] < s.stop_row.as_deref().unwrap_or_default())
        };
        let scanner = table.scan(&scan).map_err(|e| from_error(&e))?;
        let id = self.next_scanner.fetch_add(1, Ordering::Relaxed);
        self.scanners.insert(
            id,
            Open {
                scanner,
                more_after,
                max_result_size,
            },
        );
        Ok(id)
    }

    /// Closes scanners idle past the lease, and forgets nonces past their grace period;
    /// returns how many scanners.
    pub fn expire(&self) -> usize {
        self.nonces.expire();
        self.scanners.expire()
    }

    pub fn open_scanners(&self) -> usize {
        self.scanners.len()
    }
}

/// One cell of a mutation, from the message or from the call's cell block.
struct Part {
    family: Bytes,
    qualifier: Bytes,
    timestamp: Option<u64>,
    delete_type: Option<i32>,
    value: Bytes,
}

/// The cells of a mutation: `cells` (its share of the call's cell block, sliced from the
/// frame) if it counts any, else those in the message (copied out of it).
fn parts(m: &pb::MutationProto, cells: &[KeyValue]) -> Result<Vec<Part>, ExceptionResponse> {
    if m.associated_cell_count.unwrap_or(0) > 0 {
        if cells.is_empty() {
            return Err(unsupported(
                "a mutation counting cells of a call without a cell block",
            ));
        }
        return cells
            .iter()
            .map(|c| {
                Ok(Part {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    // LATEST_TIMESTAMP (and a negative one) means the server's time.
                    timestamp: u64::try_from(c.timestamp)
                        .ok()
                        .filter(|&t| t != LATEST_TIMESTAMP as u64),
                    delete_type: c.delete_type()?.map(|d| d as i32),
                    value: c.value.clone(),
                })
            })
            .collect();
    }
    let copy = |b: Option<&Vec<u8>>| Bytes::copy_from_slice(b.map_or(&[][..], Vec::as_slice));
    Ok(m.column_value
        .iter()
        .flat_map(|cv| {
            let family = Bytes::copy_from_slice(&cv.family);
            cv.qualifier_value.iter().map(move |qv| Part {
                family: family.clone(),
                qualifier: copy(qv.qualifier.as_ref()),
                timestamp: qv.timestamp,
                delete_type: qv.delete_type,
                value: copy(qv.value.as_ref()),
            })
        })
        .collect())
}

/// The row and the operation a `MutationProto` describes, its cells in the message or, when it
/// counts them, in `cells`.
fn action(
    m: &pb::MutationProto,
    cells: &[KeyValue],
) -> Result<(Bytes, CheckAction), ExceptionResponse> {
    let parts = parts(m, cells)?;
    let row = match (&m.row, cells.first()) {
        (None, Some(c)) if m.associated_cell_count.unwrap_or(0) > 0 => c.row.clone(),
        (row, _) => Bytes::copy_from_slice(row.as_deref().unwrap_or_default()),
    };
    let ts = given(m.timestamp).unwrap_or(LATEST_TIMESTAMP);
    let ttl_ms = ttl_attribute(&m.attribute)?;
    use mutation_proto::{DeleteType, MutationType};
    let kind = m.mutate_type.and_then(|t| MutationType::try_from(t).ok());
    let action = match kind {
        Some(MutationType::Put) => {
            let mut put = Put::new(row.clone()).with_timestamp(ts);
            for p in parts {
                put = match p.timestamp {
                    Some(t) => put.add_column_at(
                        p.family,
                        p.qualifier,
                        i64::try_from(t).unwrap_or(LATEST_TIMESTAMP),
                        p.value,
                    ),
                    None => put.add_column(p.family, p.qualifier, p.value),
                };
            }
            put.ttl_ms = ttl_ms;
            CheckAction::Put(put.with_durability(durability(m.durability)))
        }
        Some(MutationType::Delete) => {
            let mut delete = Delete::new(row.clone()).with_timestamp(ts);
            for p in parts {
                let (f, q) = (p.family, p.qualifier);
                let t = given(p.timestamp);
                let kind = p.delete_type.and_then(|d| DeleteType::try_from(d).ok());
                delete = match (kind, t) {
                    (Some(DeleteType::DeleteOneVersion), Some(t)) => delete.add_column_at(f, q, t),
                    (Some(DeleteType::DeleteOneVersion), None) => delete.add_column(f, q),
                    (Some(DeleteType::DeleteFamily), Some(t)) => delete.add_family_at(f, t),
                    (Some(DeleteType::DeleteFamily), None) => delete.add_family(f),
                    (Some(DeleteType::DeleteFamilyVersion), t) => {
                        delete.add_family_version(f, t.unwrap_or(ts))
                    }
                    (_, Some(t)) => delete.add_columns_at(f, q, t),
                    (_, None) => delete.add_columns(f, q),
                };
            }
            CheckAction::Delete(delete.with_durability(durability(m.durability)))
        }
        Some(MutationType::Increment) => {
            let mut inc = Increment::new(row.clone());
            for p in parts {
                let amount = i64::from_be_bytes(p.value[..].try_into().map_err(|_| {
                    exception(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        format!("Field is not a long, it's {} bytes wide", p.value.len()),
                        true,
                    )
                })?);
                inc = inc.add_column(p.family, p.qualifier, amount);
            }
            inc.ttl_ms = ttl_ms;
            let (from, to) = ts_range(m.time_range.as_ref());
            CheckAction::Increment(
                inc.with_time_range(from, to)
                    .with_durability(durability(m.durability)),
            )
        }
        Some(MutationType::Append) => {
            let mut app = Append::new(row.clone());
            for p in parts {
                app = app.add_column(p.family, p.qualifier, p.value);
            }
            app.ttl_ms = ttl_ms;
            let (from, to) = ts_range(m.time_range.as_ref());
            CheckAction::Append(
                app.with_time_range(from, to)
                    .with_durability(durability(m.durability)),
            )
        }
        None => return Err(unsupported("a mutation without a type")),
    };
    Ok((row, action))
}

/// The block's cells dealt to a call's mutations ([`cellblock::deal`]); nothing without a
/// block (a mutation that counts cells then fails by itself, naming the missing block).
fn dealt<'a>(
    block: &[u8],
    mutations: impl IntoIterator<Item = Option<&'a pb::MutationProto>>,
    cells: &[KeyValue],
) -> Result<Vec<Range<usize>>, ExceptionResponse> {
    if block.is_empty() {
        return Ok(Vec::new());
    }
    cellblock::deal(mutations, cells)
}

/// The cells `dealt` gives the `k`th mutation of a call (none when the call has no block).
fn share<'a>(cells: &'a [KeyValue], dealt: &[Range<usize>], k: usize) -> &'a [KeyValue] {
    dealt.get(k).map_or(&[], |r| &cells[r.clone()])
}

/// An operation's nonce, where it has one that counts: increments, appends and
/// check-and-mutates (a plain put or delete applied twice changes nothing more).
#[derive(Debug, Clone, Copy)]
struct Nonce {
    group: u64,
    nonce: u64,
}

impl Nonce {
    fn of(group: Option<u64>, m: &pb::MutationProto, op: &CheckAction, conditional: bool) -> Nonce {
        let counts =
            conditional || matches!(op, CheckAction::Increment(_) | CheckAction::Append(_));
        Nonce {
            group: group.unwrap_or(0),
            nonce: if counts {
                m.nonce.unwrap_or(NO_NONCE)
            } else {
                NO_NONCE
            },
        }
    }
}

/// The answer to a repeated increment or append (its nonce already ran): the current values
/// of its columns, as HBase turns a duplicate into a Get; nothing for other operations.
fn current(table: &Region, op: &CheckAction) -> Result<Option<RowResult>, ExceptionResponse> {
    let (row, columns): (&Bytes, Vec<(&Bytes, &Bytes)>) = match op {
        CheckAction::Increment(i) => (&i.row, i.columns.iter().map(|c| (&c.0, &c.1)).collect()),
        CheckAction::Append(a) => (&a.row, a.columns.iter().map(|c| (&c.0, &c.1)).collect()),
        _ => return Ok(None),
    };
    let mut get = Get::new(row.clone());
    for (family, qualifier) in columns {
        get = get.add_column(family.clone(), qualifier.clone());
    }
    table.get(&get).map(Some).map_err(|e| from_error(&e))
}

/// Applies one operation; increments and appends return their new cells.
fn apply(table: &Region, action: CheckAction) -> Result<Option<RowResult>, ExceptionResponse> {
    let fail = |e: Error| from_error(&e);
    match action {
        CheckAction::Put(p) => table.put(&p).map_err(fail)?,
        CheckAction::Delete(d) => table.delete(&d).map_err(fail)?,
        CheckAction::Increment(i) => return Ok(Some(table.increment(&i).map_err(fail)?)),
        CheckAction::Append(a) => return Ok(Some(table.append(&a).map_err(fail)?)),
        CheckAction::RowMutations(m) => {
            table.mutate_row(&m).map_err(fail)?;
        }
    }
    Ok(None)
}

fn bad_filter(what: &str) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        what.to_owned(),
        true,
    )
}

/// An exception as Multi reports one per action: its class and message.
fn as_pair(e: &ExceptionResponse) -> NameBytesPair {
    NameBytesPair {
        name: e.exception_class_name.clone().unwrap_or_default(),
        value: e.stack_trace.clone().map(String::into_bytes),
    }
}

fn result_of(r: &RowResult) -> pb::Result {
    result(&r.cells, false)
}

/// A check-and-mutate condition: a column compared with a BinaryComparator's value (or
/// absent, with a NullComparator).
/// What a condition checks: one column's value against a comparator, or (HBase 2.4's
/// `ifMatches(Filter)`) that the row read through a filter, within the time range, has a cell.
fn check(c: &pb::Condition) -> Result<Check, ExceptionResponse> {
    if let Some(f) = &c.filter {
        let (from, to) = ts_range(c.time_range.as_ref());
        return Ok(Check::Filter {
            filter: filters::filter(f).map_err(|e| bad_filter(&e))?,
            time_range: TimeRange::new(from, to),
        });
    }
    condition(c).map(Check::Column)
}

fn condition(c: &pb::Condition) -> Result<Condition, ExceptionResponse> {
    let family = Bytes::copy_from_slice(c.family.as_deref().unwrap_or_default());
    let qualifier = Bytes::copy_from_slice(c.qualifier.as_deref().unwrap_or_default());
    let op = filters::op(c.compare_type());
    let expected = match &c.comparator {
        None => Bytes::new(),
        Some(cmp) if cmp.name.ends_with(".NullComparator") => Bytes::new(),
        Some(cmp) if cmp.name.ends_with(".BinaryComparator") => {
            let b =
                BinaryComparator::decode(cmp.serialized_comparator.as_deref().unwrap_or_default())
                    .map_err(|e| {
                        unsupported(&format!("a comparator that does not decode ({e})"))
                    })?;
            Bytes::from(b.comparable.value.unwrap_or_default())
        }
        Some(cmp) => return Err(unsupported(&format!("the comparator {}", cmp.name))),
    };
    let mut cond = Condition::matches(family, qualifier, op, expected);
    if let Some(tr) = &c.time_range {
        let (from, to) = ts_range(Some(tr));
        cond = cond.with_time_range(from, to);
    }
    Ok(cond)
}
