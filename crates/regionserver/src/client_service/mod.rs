//! ClientService (HBase's `RSRpcServices` for data): Get, Mutate, Scan and Multi, each run on
//! the online region the call names (`table,start,id.encoded.`, or its encoded name); reads
//! and scans stay inside it, so a client that walks the regions in `hbase:meta` sees every
//! row once.

use basalt_common::acl::User;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::ops::{
    Append, Check, CheckAction, CheckAndMutate, Condition, Increment, RowMutations,
};
use basalt_common::{
    Bytes, Cell, Delete, Durability, Error, Get, LATEST_TIMESTAMP, Put, RowResult, Scan, TimeRange,
};
use basalt_net::{Leases, lock_leased};
use basalt_proto::cellblock::{self, KeyValue};
use basalt_proto::filters;
use basalt_proto::pb::{
    self, BinaryComparator, ExceptionResponse, GetRequest, GetResponse, MultiRequest,
    MultiResponse, MutateRequest, MutateResponse, NameBytesPair, RegionActionResult,
    ResultOrException, ScanRequest, ScanResponse, mutation_proto,
};
use basalt_proto::{
    ISOLATION_ATTRIBUTE, RAW_ATTRIBUTE, RETURN_RESULTS_ATTRIBUTE, SCAN_METRICS_ATTRIBUTE,
    TTL_ATTRIBUTE, check_attributes, check_isolation, decode, exception, from_error, refused,
    returns_results,
};
use basalt_region::{Region, RegionScanner};
use prost::Message;

use crate::RegionServer;
use crate::nonces::{NO_NONCE, Nonces, Start};

mod aggregate;
mod decode;
mod exec;
mod scan;

use decode::*;
use scan::Open;

/// A ClientService request, decoded once: its throttle, its count and its run all read it.
#[allow(
    clippy::large_enum_variant,
    reason = "a request is decoded once and moved whole"
)]
enum Request {
    Get(GetRequest),
    Mutate(MutateRequest),
    Scan(ScanRequest),
    Multi(MultiRequest),
    ExecService(pb::CoprocessorServiceRequest),
    BulkLoad(pb::BulkLoadHFileRequest),
}

impl Request {
    /// `method`'s request; None if ClientService has no such method, an exception if it is one
    /// Basalt refuses or its message does not decode.
    fn decode(method: &str, param: Option<&[u8]>) -> Option<Result<Request, ExceptionResponse>> {
        Some(match method {
            "Get" => decode(param).map(Request::Get),
            "Mutate" => decode(param).map(Request::Mutate),
            "Scan" => decode(param).map(Request::Scan),
            "Multi" => decode(param).map(Request::Multi),
            "ExecService" => decode(param).map(Request::ExecService),
            "BulkLoadHFile" => decode(param).map(Request::BulkLoad),
            "PrepareBulkLoad" | "CleanupBulkLoad" | "ExecRegionServerService" => {
                Err(unsupported(method))
            }
            _ => return None,
        })
    }

    /// A read or a write of rows, which a user's request count counts.
    fn is_data(&self) -> bool {
        matches!(
            self,
            Request::Get(_) | Request::Mutate(_) | Request::Scan(_) | Request::Multi(_)
        )
    }

    /// Whether what it answers counts against the read-byte throttles.
    fn reads(&self) -> bool {
        matches!(self, Request::Get(_) | Request::Scan(_) | Request::Multi(_))
    }
}

fn unsupported(what: &str) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        format!("{what} is not supported by Basalt's RPC yet"),
        true,
    )
}

type Outcome = Result<Vec<u8>, ExceptionResponse>;

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
    /// The RPC throttles in force (none: no quotas).
    quotas: Option<Arc<crate::quotas::QuotaCache>>,
    /// Whether a Get with `closest_row_before` is served (HBase 1.x's getRowOrBefore) or
    /// refused as HBase 2 refuses it ([`CLOSEST_ROW_BEFORE_KEY`]).
    closest_row_before: bool,
}

impl std::fmt::Debug for ClientService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientService")
            .field("lease", &self.scanners.lease())
            .finish_non_exhaustive()
    }
}

fn result(cells: &[Cell], partial: bool) -> pb::Result {
    basalt_proto::ops::result_pb(cells, partial)
}

/// A region this server does not serve: the client looks it up again.
fn not_serving(name: &[u8]) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.NotServingRegionException",
        format!("Region {} is not online", String::from_utf8_lossy(name)),
        false,
    )
}

/// A row outside the region named in the call is the client's stale location: a
/// NotServingRegionException, so it looks the row's region up again (HBase's region server
/// refuses it too, where it serves only the regions it holds).
/// The settings key that, `false`, refuses Gets with `closest_row_before` with HBase 2's
/// UnknownProtocolException instead of serving them (`docs/design/rpc.md`).
pub const CLOSEST_ROW_BEFORE_KEY: &str = "basalt.regionserver.closest.row.before";

fn holds(region: &Region, row: &[u8]) -> Result<(), ExceptionResponse> {
    if region.info().contains_row(row) {
        return Ok(());
    }
    Err(exception(
        "org.apache.hadoop.hbase.NotServingRegionException",
        format!(
            "Region {} does not hold row {}",
            String::from_utf8_lossy(&region.info().region_name()),
            BinaryDisplay::new(row)
        ),
        false,
    ))
}

impl ClientService {
    pub fn new(rs: Arc<RegionServer>, lease: Duration) -> Self {
        let open = Arc::clone(&rs.config.metrics.open_scanners);
        ClientService {
            scanners: Leases::counted(lease, open),
            finished: Mutex::new(std::collections::VecDeque::new()),
            next_scanner: AtomicU64::new(1),
            nonces: Nonces::default(),
            quotas: None,
            closest_row_before: rs
                .config
                .settings
                .file_values()
                .get(CLOSEST_ROW_BEFORE_KEY)
                .is_none_or(|v| v.trim() != "false"),
            rs,
        }
    }

    /// Enforces the throttles `quotas` keeps on Get, Mutate, Scan and Multi.
    pub fn with_quotas(mut self, quotas: Arc<crate::quotas::QuotaCache>) -> Self {
        self.quotas = Some(quotas);
        self
    }

    /// The table of the region a call names, if this server has it open.
    fn table_of(&self, spec: Option<&pb::RegionSpecifier>) -> Option<basalt_common::TableName> {
        let spec = spec?;
        self.rs
            .region_named(&spec.value)
            .map(|r| r.info().table.clone())
    }

    /// Refuses a call that would go past a throttle (HBase's RpcThrottlingException, with
    /// how long to wait); returns the call's tables (for what it reads after). `bytes` is the
    /// request's size.
    fn throttle(
        &self,
        request: &Request,
        bytes: u64,
        user: Option<&User>,
    ) -> Result<Vec<Option<basalt_common::TableName>>, ExceptionResponse> {
        use crate::quotas::Usage;
        let Some(quotas) = self.quotas.as_ref().filter(|q| q.is_active()) else {
            return Ok(Vec::new());
        };
        let name = user.map_or("anonymous", |u| u.name.as_str());
        // Without a quota that depends on the table, a call is counted without its table.
        let table_of = |spec: Option<&pb::RegionSpecifier>| {
            quotas.needs_table().then(|| self.table_of(spec)).flatten()
        };
        let reads = Usage {
            reads: 1,
            ..Usage::default()
        };
        let calls: Vec<(Option<basalt_common::TableName>, Usage)> = match request {
            Request::Get(r) => vec![(table_of(Some(&r.region)), reads)],
            Request::Mutate(r) => {
                let usage = Usage {
                    writes: 1,
                    write_bytes: bytes,
                    ..Usage::default()
                };
                vec![(table_of(Some(&r.region)), usage)]
            }
            // A call naming only its scanner counts for the scanned table too.
            Request::Scan(r) => {
                let table = quotas
                    .needs_table()
                    .then(|| self.table_of(r.region.as_ref()).or_else(|| self.scanned(r)))
                    .flatten();
                vec![(table, reads)]
            }
            Request::Multi(r) => {
                let actions: usize = r.region_action.iter().map(|ra| ra.action.len()).sum();
                r.region_action
                    .iter()
                    .map(|ra| {
                        let writes =
                            ra.action.iter().filter(|a| a.mutation.is_some()).count() as u64;
                        // The request's bytes shared by its mutations.
                        let share = bytes * ra.action.len() as u64 / actions.max(1) as u64;
                        let usage = Usage {
                            reads: ra.action.len() as u64 - writes,
                            writes,
                            write_bytes: if writes > 0 { share } else { 0 },
                            read_bytes: 0,
                        };
                        (table_of(Some(&ra.region)), usage)
                    })
                    .collect()
            }
            Request::ExecService(_) | Request::BulkLoad(_) => return Ok(Vec::new()),
        };
        for (table, usage) in &calls {
            quotas.check(name, table.as_ref(), *usage).map_err(|t| {
                exception(
                    "org.apache.hadoop.hbase.quotas.RpcThrottlingException",
                    t.message(),
                    false,
                )
            })?;
        }
        Ok(calls.into_iter().map(|(t, _)| t).collect())
    }

    /// The table an open scanner reads.
    fn scanned(&self, r: &ScanRequest) -> Option<basalt_common::TableName> {
        let open = self.scanners.get(&r.scanner_id?)?;
        let open = open.lock().unwrap_or_else(PoisonError::into_inner);
        Some(open.table.clone())
    }

    /// Runs `method`; `None` if ClientService has no such method. `cell_block` holds the
    /// cells of the call's mutations when the client sent them outside the message (empty
    /// otherwise; the server has checked the connection's codec).
    pub fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        cell_block: &Bytes,
        user: Option<&User>,
    ) -> Option<Outcome> {
        // Served only under the server's lease, held before the call and still after it: an
        // answer made while the master may already have handed the region to another server
        // could be stale (`standing`).
        if !self.rs.standing.holds() {
            return Some(Err(self.standing_lapsed()));
        }
        let request = match Request::decode(method, param)? {
            Ok(r) => r,
            Err(e) => return Some(Err(e)),
        };
        let tables = self.throttle(&request, param.map_or(0, |p| p.len() as u64), user);
        if request.is_data() {
            let name = user.map_or("anonymous", |u| u.name.as_str());
            let throttled = tables.as_ref().err().is_some_and(|e| {
                e.exception_class_name
                    .as_deref()
                    .is_some_and(|c| c.ends_with("RpcThrottlingException"))
            });
            self.rs.user_requests.count(name, throttled);
        }
        let tables = match tables {
            Ok(t) => t,
            Err(e) => return Some(Err(e)),
        };
        let reads = request.reads();
        let outcome = self.dispatch(request, cell_block, user);
        // What a read returned counts against the byte throttles after the call.
        if let (Some(quotas), Ok(answer), true) = (
            self.quotas
                .as_ref()
                .filter(|q| q.is_active() && q.counts_read_bytes()),
            &outcome,
            reads,
        ) {
            let name = user.map_or("anonymous", |u| u.name.as_str());
            quotas.consumed(
                name,
                tables.first().and_then(Option::as_ref),
                answer.len() as u64,
            );
        }
        if !self.rs.standing.holds() {
            return Some(Err(self.standing_lapsed()));
        }
        Some(outcome)
    }

    /// Why a call is refused while the server's lease has lapsed: NotServingRegionException,
    /// so the client looks the region up again.
    fn standing_lapsed(&self) -> ExceptionResponse {
        exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            format!(
                "{} has not heard from ZooKeeper within its lease ({:.1?} ago it lapsed): it \
                 serves no region until it does",
                self.rs.name,
                self.rs.standing.lapsed_for().unwrap_or_default()
            ),
            false,
        )
    }

    fn dispatch(&self, request: Request, cell_block: &Bytes, user: Option<&User>) -> Outcome {
        fn no_cells(cell_block: &[u8]) -> Result<(), ExceptionResponse> {
            if cell_block.is_empty() {
                Ok(())
            } else {
                Err(unsupported("a cell block on a call without mutations"))
            }
        }
        match request {
            Request::Get(r) => no_cells(cell_block).and_then(|()| self.get(&r, user)),
            Request::Mutate(r) => {
                let cells = cellblock::decode_untagged(cell_block)?;
                let dealt = dealt(cell_block, [Some(&r.mutation)], &cells)?;
                self.mutate(&r, share(&cells, &dealt, 0), user)
            }
            Request::Scan(r) => no_cells(cell_block).and_then(|()| self.scan(&r, user)),
            Request::Multi(r) => {
                let cells = cellblock::decode_untagged(cell_block)?;
                let mutations = r
                    .region_action
                    .iter()
                    .flat_map(|ra| ra.action.iter().map(|a| a.mutation.as_ref()));
                let dealt = dealt(cell_block, mutations, &cells)?;
                self.multi(&r, &cells, &dealt, user)
            }
            Request::ExecService(r) => self.exec_service(&r, user),
            Request::BulkLoad(r) => no_cells(cell_block).and_then(|()| self.bulk_load(&r, user)),
        }
    }

    /// Cuts a read's families to what `user` may read (`AccessControl::restrict_read`).
    fn restrict_read(
        &self,
        user: Option<&User>,
        region: &Region,
        families: &mut basalt_common::ops::FamilyMap,
    ) -> Result<(), ExceptionResponse> {
        let access = &self.rs.config.access;
        if user.is_none() || !access.is_enabled() {
            return Ok(());
        }
        access
            .restrict_read(user, &region.info().table, families, &family_names(region))
            .map_err(|e| from_error(&e))
    }

    /// `Ok` if `user` may read `family` of the region's table (a condition's column).
    fn may_read_family(
        &self,
        user: Option<&User>,
        region: &Region,
        family: &[u8],
    ) -> Result<(), ExceptionResponse> {
        let table = &region.info().table;
        self.rs
            .config
            .access
            .readable(user, table, &[Bytes::copy_from_slice(family)], &[])
            .map(|_| ())
            .map_err(|e| from_error(&e))
    }

    /// `Ok` if `user` may write every family `op` touches (a whole-row delete touches all).
    fn may_write(
        &self,
        user: Option<&User>,
        region: &Region,
        op: &CheckAction,
    ) -> Result<(), ExceptionResponse> {
        let access = &self.rs.config.access;
        if user.is_none() || !access.is_enabled() {
            return Ok(());
        }
        access
            .check_mutation(user, &region.info().table, op, &family_names(region))
            .map_err(|e| from_error(&e))
    }

    /// The online region a specifier names (by full or encoded region name, as HBase's
    /// clients name regions). A region this server does not serve is a
    /// NotServingRegionException, so the client looks it up again.
    fn region(&self, spec: Option<&pb::RegionSpecifier>) -> Result<Arc<Region>, ExceptionResponse> {
        let spec = spec.ok_or_else(|| unsupported("a call without a region"))?;
        self.rs
            .region_named(&spec.value)
            .ok_or_else(|| not_serving(&spec.value))
    }

    /// Adopts prepared store files into one region (HBase's bulk load needs CREATE on the
    /// table); all of them or none.
    fn bulk_load(&self, req: &pb::BulkLoadHFileRequest, user: Option<&User>) -> Outcome {
        let region = self.region(Some(&req.region))?;
        let access = &self.rs.config.access;
        if user.is_some() && access.is_enabled() {
            access
                .check_any(
                    user,
                    &[basalt_common::acl::Action::Create],
                    &basalt_common::acl::Scope::table(&region.info().table),
                )
                .map_err(|e| from_error(&e))?;
        }
        check_bulk_load(req)?;
        let files: Vec<(Bytes, std::path::PathBuf)> = req
            .family_path
            .iter()
            .map(|f| (Bytes::copy_from_slice(&f.family), f.path.clone().into()))
            .collect();
        self.rs
            .bulk_load(&region, &files, req.replicate.unwrap_or(true))
            .map_err(|e| from_error(&e))?;
        Ok(pb::BulkLoadHFileResponse { loaded: true }.encode_to_vec())
    }

    fn get(&self, req: &GetRequest, user: Option<&User>) -> Outcome {
        let region = self.region(Some(&req.region))?;
        let g = &req.get;
        check_get(g)?;
        holds(&region, &g.row)?;
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
        self.restrict_read(user, &region, &mut get.families)?;
        let (from, to) = ts_range(g.time_range.as_ref());
        for (family, min, max) in family_time_ranges(&g.cf_time_range) {
            get = get.with_family_time_range(family, min, max);
        }
        get = get
            .with_time_range(from, to)
            .read_versions(g.max_versions().max(1))
            .with_cache_blocks(g.cache_blocks());
        if g.closest_row_before() {
            match self.row_at_or_before(&region, &get)? {
                Some(found) => get.row = found,
                None => {
                    return Ok(GetResponse {
                        result: Some(result(&[], false)),
                    }
                    .encode_to_vec());
                }
            }
        }
        let row = region.get(&get).map_err(|e| from_error(&e))?;
        let mut res = result(&row.cells, false);
        if g.existence_only() {
            res = pb::Result {
                exists: Some(!row.cells.is_empty()),
                ..pb::Result::default()
            };
        }
        Ok(GetResponse { result: Some(res) }.encode_to_vec())
    }

    /// HBase 1.x's getRowOrBefore (a Get with `closest_row_before`): the row of the region
    /// at or before the Get's, among those with a cell in its one family; None if there is
    /// none. How 1.x-era clients find a region in `hbase:meta`.
    fn row_at_or_before(
        &self,
        region: &Region,
        get: &Get,
    ) -> Result<Option<Bytes>, ExceptionResponse> {
        if !self.closest_row_before {
            return Err(exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                "Is this a pre-hbase-1.0.0 or asynchbase client? Client is invoking \
                 getClosestRowBefore removed in hbase-2.0.0 replaced by reverse Scan."
                    .to_owned(),
                true,
            ));
        }
        let [family] = get.families.keys().collect::<Vec<_>>()[..] else {
            return Err(from_error(&basalt_common::Error::InvalidArgument(
                "a Get with closest_row_before names exactly one family (HBase 1.x's \
                 getRowOrBefore)"
                    .into(),
            )));
        };
        let mut scan = basalt_common::Scan::new()
            .with_start_row_inclusive(get.row.clone(), true)
            .reversed(true)
            .add_family(family.clone())
            .with_limit(1);
        let start = &region.info().start_key;
        if !start.is_empty() {
            scan = scan.with_stop_row_inclusive(start.clone(), true);
        }
        let mut rows = region.scan(&scan).map_err(|e| from_error(&e))?;
        match rows.next() {
            Some(Ok(row)) => Ok(Some(row.row)),
            Some(Err(e)) => Err(from_error(&e)),
            None => Ok(None),
        }
    }

    /// Mutate; `cells` are the mutation's share of the call's cell block. An increment,
    /// append or check-and-mutate with a nonce runs at most once (`crate::nonces`).
    fn mutate(&self, req: &MutateRequest, cells: &[KeyValue], user: Option<&User>) -> Outcome {
        let region = self.region(Some(&req.region))?;
        let (row, action) = action(&req.mutation, cells)?;
        holds(&region, &row)?;
        self.may_write(user, &region, &action)?;
        if let Some(c) = &req.condition {
            self.may_read_family(user, &region, c.family.as_deref().unwrap_or_default())?;
        }
        // `_rr_` false: an empty result instead of the new cells, as HBase answers
        // (check_mutation refused a bad value).
        let returns = returns_results(&req.mutation.attribute).unwrap_or(true);
        let response = |result: Option<RowResult>, processed: Option<bool>| {
            MutateResponse {
                result: result.map(|r| {
                    if returns {
                        result_of(&r)
                    } else {
                        pb::Result::default()
                    }
                }),
                processed,
            }
            .encode_to_vec()
        };
        let conditional = req.condition.is_some();
        let (result, processed) = self.at_most_once(
            Nonce::of(req.nonce_group, &req.mutation),
            action,
            |action| self.mutate_once(&region, row, action, req.condition.as_ref()),
            |(result, processed)| (processed.unwrap_or(true), result.as_ref()),
            |action, applied, first| {
                let result = match first {
                    Some(first) => Some(first),
                    None => current(&region, action)?,
                };
                Ok(if conditional {
                    (result.filter(|_| applied), Some(applied))
                } else {
                    (result, None)
                })
            },
        )?;
        Ok(response(result, processed))
    }

    /// Runs `run` on `input` at most once per nonce (HBase's `ServerNonceManager`; see
    /// `nonces`), recording whether it applied and its answer (`recorded`); a repeat of a
    /// finished one is answered by `again` from those, without running.
    fn at_most_once<I, T>(
        &self,
        nonce: Nonce,
        input: I,
        run: impl FnOnce(I) -> Result<T, ExceptionResponse>,
        recorded: impl Fn(&T) -> (bool, Option<&RowResult>),
        again: impl FnOnce(&I, bool, Option<RowResult>) -> Result<T, ExceptionResponse>,
    ) -> Result<T, ExceptionResponse> {
        match self.nonces.start(nonce.group, nonce.nonce) {
            Start::AlreadyDone { applied, result } => again(&input, applied, result),
            Start::Run => {
                let outcome = run(input);
                let done = outcome.as_ref().ok().map(recorded);
                self.nonces.finish(
                    nonce.group,
                    nonce.nonce,
                    done.map(|(applied, _)| applied),
                    done.and_then(|(_, result)| result),
                );
                outcome
            }
        }
    }

    /// Applies a Mutate's operation (under its condition, if any): its result and
    /// `processed` flag.
    fn mutate_once(
        &self,
        region: &Region,
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
            let out = region.check_and_mutate(&cam).map_err(|e| from_error(&e))?;
            return Ok((out.result, Some(out.success)));
        }
        // As HBase: an applied Put or Delete says so; an Increment or Append answers with its
        // cells instead.
        let plain = matches!(action, CheckAction::Put(_) | CheckAction::Delete(_));
        Ok((apply(region, action)?, plain.then_some(true)))
    }

    /// Multi: each region action's actions in order, a result or an exception each; an atomic
    /// region action is one row's mutations applied together (with the request's condition,
    /// a check-and-mutate). `dealt` gives each action's share of `cells`, the call's cell
    /// block, counting actions across region actions in order.
    fn multi(
        &self,
        req: &MultiRequest,
        cells: &[KeyValue],
        dealt: &[Range<usize>],
        user: Option<&User>,
    ) -> Outcome {
        let started = std::time::Instant::now();
        let outcome = self.multi_actions(req, cells, dealt, user);
        self.rs
            .config
            .metrics
            .timed(basalt_common::metrics::Op::Multi, started);
        outcome
    }

    fn multi_actions(
        &self,
        req: &MultiRequest,
        cells: &[KeyValue],
        dealt: &[Range<usize>],
        user: Option<&User>,
    ) -> Outcome {
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
                Ok(region) if ra.atomic() || ra.condition.is_some() => {
                    let condition = ra.condition.as_ref().or(req.condition.as_ref());
                    // The first action's nonce stands for the whole region action; a repeat
                    // gets its outcome again (its increments' and appends' cells are not
                    // remembered for a whole region action).
                    let nonce = ra
                        .action
                        .first()
                        .and_then(|a| a.mutation.as_ref())
                        .map_or(Nonce::NONE, |m| Nonce::of(req.nonce_group, m));
                    let outcome = self.at_most_once(
                        nonce,
                        (),
                        |()| self.atomic(&region, ra, share, condition, user),
                        |(processed, _)| (*processed, None),
                        |(), applied, _| Ok((applied, Vec::new())),
                    );
                    match outcome {
                        Ok((processed, results)) => {
                            // HBase 2.4+ answers in the region action's result; older
                            // clients read the response's flag.
                            result.processed = Some(processed);
                            out.processed = Some(processed);
                            // Each action's answer at its place in the region action: HBase's
                            // client (Table.mutateRow) sends atomic actions without an index
                            // and looks each up by its position.
                            for k in 0..ra.action.len() {
                                let r = results.get(k).map(result_of).unwrap_or_default();
                                result.result_or_exception.push(ResultOrException {
                                    index: u32::try_from(k).ok(),
                                    result: Some(r),
                                    exception: None,
                                });
                            }
                        }
                        Err(e) => result.exception = Some(as_pair(&e)),
                    }
                }
                Ok(region) => {
                    for (k, a) in ra.action.iter().enumerate() {
                        let outcome = match (&a.get, &a.mutation) {
                            (Some(g), _) => self
                                .get(
                                    &GetRequest {
                                        region: ra.region.clone(),
                                        get: g.clone(),
                                    },
                                    user,
                                )
                                .and_then(|bytes| {
                                    GetResponse::decode(&bytes[..])
                                        .map(|r| r.result.unwrap_or_default())
                                        .map_err(|e| unsupported(&e.to_string()))
                                }),
                            (None, Some(m)) => action(m, share(k))
                                .and_then(|(row, op)| {
                                    holds(&region, &row)?;
                                    self.may_write(user, &region, &op)?;
                                    let nonce = Nonce::of(req.nonce_group, m);
                                    self.once(&region, op, nonce)
                                })
                                .map(|r| {
                                    r.filter(|_| returns_results(&m.attribute).unwrap_or(true))
                                        .map(|r| result_of(&r))
                                        .unwrap_or_default()
                                }),
                            (None, None) if a.service_call.is_some() => Err(refused(
                                "Action.service_call",
                                "Basalt runs no coprocessor endpoint inside a Multi",
                            )),
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
        region: &Region,
        op: CheckAction,
        nonce: Nonce,
    ) -> Result<Option<RowResult>, ExceptionResponse> {
        self.at_most_once(
            nonce,
            op,
            |op| apply(region, op),
            |result| (true, result.as_ref()),
            |op, _, first| match first {
                Some(first) => Ok(Some(first)),
                None => current(region, op),
            },
        )
    }

    /// One region action's mutations as one row's atomic mutation; with a condition, only if
    /// it holds. Returns whether it was applied and each action's result (an increment's or
    /// append's new cells, empty for the others).
    fn atomic<'a>(
        &self,
        region: &Region,
        ra: &pb::RegionAction,
        share: impl Fn(usize) -> &'a [KeyValue],
        condition: Option<&pb::Condition>,
        user: Option<&User>,
    ) -> Result<(bool, Vec<RowResult>), ExceptionResponse> {
        if let Some(c) = condition {
            self.may_read_family(user, region, c.family.as_deref().unwrap_or_default())?;
        }
        let mut row: Option<Bytes> = None;
        let mut rm: Option<RowMutations> = None;
        for (k, a) in ra.action.iter().enumerate() {
            let m = a
                .mutation
                .as_ref()
                .ok_or_else(|| unsupported("a Get in an atomic region action"))?;
            let (r, op) = action(m, share(k))?;
            self.may_write(user, region, &op)?;
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
        holds(region, &row)?;
        match condition {
            Some(c) => {
                let cam = CheckAndMutate {
                    row,
                    check: check(c)?,
                    action: CheckAction::RowMutations(rm),
                };
                let out = region.check_and_mutate(&cam).map_err(|e| from_error(&e))?;
                Ok((out.success, Vec::new()))
            }
            None => {
                let results = region.mutate_row(&rm).map_err(|e| from_error(&e))?;
                Ok((true, results))
            }
        }
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

/// An operation's nonce, when its client sent one. HBase's client sends them with increments,
/// appends and check-and-mutates; Basalt's with every mutation, because a put or delete applied
/// twice is not harmless either: the second, stamped later, lands over the writes made in
/// between (see docs/design/chaos.md).
#[derive(Debug, Clone, Copy)]
struct Nonce {
    group: u64,
    nonce: u64,
}

impl Nonce {
    /// No nonce: the operation runs every time it comes.
    const NONE: Nonce = Nonce {
        group: 0,
        nonce: NO_NONCE,
    };

    fn of(group: Option<u64>, m: &pb::MutationProto) -> Nonce {
        Nonce {
            group: group.unwrap_or(0),
            nonce: m.nonce.unwrap_or(NO_NONCE),
        }
    }
}

/// The answer to a repeated increment or append (its nonce already ran): the current values
/// of its columns, as HBase turns a duplicate into a Get; nothing for other operations.
fn current(region: &Region, op: &CheckAction) -> Result<Option<RowResult>, ExceptionResponse> {
    let (row, columns): (&Bytes, Vec<(&Bytes, &Bytes)>) = match op {
        CheckAction::Increment(i) => (&i.row, i.columns.iter().map(|c| (&c.0, &c.1)).collect()),
        CheckAction::Append(a) => (&a.row, a.columns.iter().map(|c| (&c.0, &c.1)).collect()),
        _ => return Ok(None),
    };
    let mut get = Get::new(row.clone());
    for (family, qualifier) in columns {
        get = get.add_column(family.clone(), qualifier.clone());
    }
    region.get(&get).map(Some).map_err(|e| from_error(&e))
}

/// Applies one operation; increments and appends return their new cells.
fn apply(region: &Region, action: CheckAction) -> Result<Option<RowResult>, ExceptionResponse> {
    let fail = |e: Error| from_error(&e);
    match action {
        CheckAction::Put(p) => region.put(&p).map_err(fail)?,
        CheckAction::Delete(d) => region.delete(&d).map_err(fail)?,
        CheckAction::Increment(i) => return Ok(Some(region.increment(&i).map_err(fail)?)),
        CheckAction::Append(a) => return Ok(Some(region.append(&a).map_err(fail)?)),
        CheckAction::RowMutations(m) => {
            region.mutate_row(&m).map_err(fail)?;
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

/// A region's family names, for access checks that need them all.
fn family_names(region: &Region) -> Vec<Bytes> {
    region
        .descriptor()
        .families()
        .iter()
        .map(|f| f.name.clone())
        .collect()
}

impl basalt_proto::service::Service for ClientService {
    fn name(&self) -> &'static str {
        "ClientService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        cell_block: &Bytes,
        caller: Option<&User>,
    ) -> Option<Outcome> {
        ClientService::call(self, method, param, cell_block, caller)
    }

    fn may_wait(&self, method: &str) -> bool {
        matches!(method, "Mutate" | "Multi")
    }

    fn leases(&self) -> usize {
        self.open_scanners()
    }

    fn expire(&self) {
        ClientService::expire(self);
    }
}
