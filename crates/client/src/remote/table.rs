//! Data calls on one table, routed by region, retried: written once ([`TableCalls`]) for
//! the blocking [`RemoteTable`] and the async [`super::AsyncTable`].

use super::*;
use prost::Message as _;

/// One table of a [`RemoteConnection`].
#[derive(Debug)]
pub struct RemoteTable<'c> {
    pub(super) conn: &'c RemoteConnection,
    pub(super) name: TableName,
}

impl RemoteTable<'_> {
    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    fn calls(&self) -> TableCalls<'_, Blocking> {
        TableCalls {
            conn: &self.conn.core,
            name: &self.name,
        }
    }

    /// The scan's rows, fetched as they are read (the first call is made now).
    pub fn scanner(&self, scan: &Scan) -> Result<RemoteScanner<&RemoteConnection>> {
        RemoteScanner::open(self.conn, self.name.clone(), scan.clone())
    }

    /// Every row of the scan, region after region (for a reversed scan, from the last region
    /// back). Rows come in `caching`-sized calls; [`RemoteTable::scanner`] hands them out as
    /// they come.
    pub fn scan(&self, scan: &Scan) -> Result<Vec<RowResult>> {
        self.scanner(scan)?.collect()
    }
}

both_faces! {
    RemoteTable<'_>, super::AsyncTable;

    /// Writes the put's cells (HBase's `Table.put`).
    fn put(&self, put: &Put) -> Result<()>;
    /// Deletes what the delete names (HBase's `Table.delete`).
    fn delete(&self, delete: &Delete) -> Result<()>;
    /// The row's cells as the get selects them; an empty result for a missing row.
    fn get(&self, get: &Get) -> Result<RowResult>;
    /// Whether the get finds any cell.
    fn exists(&self, get: &Get) -> Result<bool>;
    /// Adds to counters, atomically: the new values.
    fn increment(&self, inc: &Increment) -> Result<RowResult>;
    /// Appends to values, atomically: the new values.
    fn append(&self, append: &Append) -> Result<RowResult>;
    /// Mutations of one row applied together (HBase's `mutateRow`): one atomic region action.
    /// One result per mutation, in order: an increment's or append's new cells, empty for a
    /// put or a delete.
    fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>>;
    /// A mutation applied only if the condition holds, atomically (HBase's `checkAndMutate`).
    fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult>;
    /// Operations of any kind and rows, each on its own (HBase's `batch`: not atomic across
    /// operations), one outcome per operation in order. Gets, puts, deletes, increments and
    /// appends travel together in one Multi call per server, grouped by region, as HBase's
    /// client sends them; row mutations, check-and-mutates, and operations whose region failed
    /// in the Multi (moved, not served) run on their own, with the usual retries.
    fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>>;
    /// Adopts prepared store files into the region holding `row` (ClientService
    /// BulkLoadHFile); the paths are the server's.
    fn bulk_load(&self, row: &[u8], files: &[(Bytes, std::path::PathBuf)]) -> Result<()>;
    /// Each region the scan reads computes its part of `what` where it is served (ExecService
    /// of HBase's AggregateService), all at once (AggregationClient's calls).
    fn aggregate_parts(
        &self,
        scan: &Scan,
        interpreter: crate::aggregate::Interpreter,
        what: crate::aggregate::Aggregation
    ) -> Result<Vec<crate::aggregate::Partial>>;
    /// A coprocessor endpoint called on each region holding rows of `range` (ExecService),
    /// all at once: each region's name and response, in key order.
    fn coprocessor_service(
        &self,
        range: (&[u8], &[u8]),
        service: &str,
        method: &str,
        request: &[u8]
    ) -> Result<Vec<(Bytes, Vec<u8>)>>;
}

/// One table's calls on a connection's core, blocking or async.
pub(super) struct TableCalls<'c, T: Transport> {
    pub(super) conn: &'c Core<T>,
    pub(super) name: &'c TableName,
}

impl<T: Transport> TableCalls<'_, T> {
    /// One Mutate call (under `condition` if given), the mutation's cells in the message or
    /// in `cells` (a cell block): the result it returns and, with a condition, whether it was
    /// applied.
    async fn mutate(
        &self,
        row: &Bytes,
        mutation: MutationProto,
        cells: &[u8],
        condition: Option<pb::Condition>,
    ) -> Result<(Option<RowResult>, Option<bool>)> {
        let name = self.name;
        // Built once (its nonce too); a retry only names another region.
        let mut mutation = mutation;
        if condition.is_some() && mutation.nonce.is_none() {
            mutation.nonce = Some(new_nonce());
        }
        let mut request = MutateRequest {
            nonce_group: mutation.nonce.map(|_| nonce_group()),
            mutation,
            condition,
            ..MutateRequest::default()
        };
        retrying!(self.conn, name, |regions| {
            let location = row_region(regions, row)?;
            request.region = region(&location.name);
            let response: MutateResponse = self
                .conn
                .call_with_cells(self.conn.server_of(location), "Mutate", &request, &[cells])
                .await
                .map_err(|e| classify(name, e))?;
            Ok((response.result.map(row_result), response.processed))
        })
    }

    async fn put(&self, put: &Put) -> Result<()> {
        no_negative(
            std::iter::once(put.timestamp).chain(put.cells.iter().filter_map(|c| c.timestamp)),
        )?;
        let mut cells = Vec::new();
        let mutation = put_cells(put, &mut cells);
        self.mutate(&put.row, mutation, &cells, None)
            .await
            .map(|_| ())
    }

    async fn delete(&self, delete: &Delete) -> Result<()> {
        no_negative(
            std::iter::once(delete.timestamp)
                .chain(delete.entries.iter().filter_map(|e| e.timestamp)),
        )?;
        let mut cells = Vec::new();
        let mutation = delete_cells(delete, &mut cells);
        self.mutate(&delete.row, mutation, &cells, None)
            .await
            .map(|_| ())
    }

    async fn increment(&self, inc: &Increment) -> Result<RowResult> {
        Ok(self
            .mutate(&inc.row, increment_pb(inc), &[], None)
            .await?
            .0
            .unwrap_or_default())
    }

    async fn append(&self, append: &Append) -> Result<RowResult> {
        Ok(self
            .mutate(&append.row, append_pb(append), &[], None)
            .await?
            .0
            .unwrap_or_default())
    }

    /// Mutations of one row applied together (HBase's `mutateRow`): one atomic region action.
    /// One result per mutation, in order: an increment's or append's new cells, empty for a
    /// put or a delete.
    async fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        self.atomic(mutations, None)
            .await
            .map(|(_, results)| results)
    }

    /// A mutation applied only if the condition holds, atomically (HBase's `checkAndMutate`).
    async fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let condition = condition_pb(&cam.row, &cam.check);
        let mutation = match &cam.action {
            CheckAction::RowMutations(rm) => {
                let (success, _) = self.atomic(rm, Some(condition)).await?;
                return Ok(CheckAndMutateResult {
                    success,
                    result: None,
                });
            }
            CheckAction::Put(p) => put_pb(p),
            CheckAction::Delete(d) => delete_pb(d),
            CheckAction::Increment(i) => increment_pb(i),
            CheckAction::Append(a) => append_pb(a),
        };
        let (result, done) = self
            .mutate(&cam.row, mutation, &[], Some(condition))
            .await?;
        let success = done.unwrap_or(false);
        Ok(CheckAndMutateResult { success, result })
    }

    /// One atomic region action holding the row's mutations, under `condition` if given (in
    /// the region action, as HBase 2.4's client sends it): whether it was applied, and each
    /// mutation's result.
    async fn atomic(
        &self,
        rm: &RowMutations,
        condition: Option<pb::Condition>,
    ) -> Result<(bool, Vec<RowResult>)> {
        let name = self.name;
        let mut actions: Vec<pb::Action> = rm
            .mutations
            .iter()
            .zip(0u32..)
            .map(|(m, index)| pb::Action {
                index: Some(index),
                mutation: Some(match m {
                    RowOp::Put(p) => put_pb(p),
                    RowOp::Delete(d) => delete_pb(d),
                    RowOp::Increment(i) => increment_pb(i),
                    RowOp::Append(a) => append_pb(a),
                }),
                ..pb::Action::default()
            })
            .collect();
        // The first action's nonce stands for the whole (the server applies it once).
        if let Some(first) = actions.first_mut().and_then(|a| a.mutation.as_mut()) {
            first.nonce = first.nonce.or_else(|| Some(new_nonce()));
        }
        let unconditional = condition.is_none();
        // Built once; a retry only names another region.
        let mut request = MultiRequest {
            region_action: vec![pb::RegionAction {
                region: pb::RegionSpecifier::default(),
                atomic: Some(true),
                action: actions,
                condition,
            }],
            nonce_group: Some(nonce_group()),
            ..MultiRequest::default()
        };
        retrying!(self.conn, name, |regions| {
            let location = row_region(regions, &rm.row)?;
            request.region_action[0].region = region(&location.name);
            let response: MultiResponse = self
                .conn
                .call(self.conn.server_of(location), "Multi", &request)
                .await
                .map_err(|e| classify(name, e))?;
            let processed = response.processed;
            let Some(result) = response.region_action_result.into_iter().next() else {
                return Ok((processed.unwrap_or(unconditional), Vec::new()));
            };
            if let Some(e) = result.exception {
                return Err(classify(name, pair_error(e)));
            }
            let applied = result.processed.or(processed).unwrap_or(unconditional);
            let mut results: Vec<(u32, RowResult)> = result
                .result_or_exception
                .into_iter()
                .map(|r| {
                    (
                        r.index.unwrap_or(0),
                        r.result.map(row_result).unwrap_or_default(),
                    )
                })
                .collect();
            results.sort_by_key(|(index, _)| *index);
            let results = results
                .into_iter()
                .map(|(_, mut r)| {
                    if r.row.is_empty() {
                        r.row = rm.row.clone();
                    }
                    r
                })
                .collect();
            Ok((applied, results))
        })
    }

    /// Operations of any kind and rows, each on its own (HBase's `batch`: not atomic across
    /// operations), one outcome per operation in order. Gets, puts, deletes, increments and
    /// appends travel together in one Multi call, grouped by region, as HBase's client sends
    /// them; row mutations, check-and-mutates, and operations whose region failed in the Multi
    /// (moved, not served) run on their own, with the usual retries.
    async fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        // Each mutation's nonce, made once: the Multi and, if the Multi failed (perhaps after
        // the server applied it), the operation's own retries all send it.
        let nonces: Vec<Option<u64>> = ops
            .iter()
            .map(|op| {
                matches!(
                    op,
                    BatchOp::Put(_)
                        | BatchOp::Delete(_)
                        | BatchOp::Increment(_)
                        | BatchOp::Append(_)
                )
                .then(new_nonce)
            })
            .collect();
        let mut out: Vec<Option<Result<BatchOutcome>>> = self.multi(ops, &nonces).await;
        out.resize_with(ops.len(), || None);
        let mut outcomes = Vec::with_capacity(ops.len());
        for ((op, done), nonce) in ops.iter().zip(out).zip(nonces) {
            outcomes.push(match done {
                Some(done) => done,
                None => self.one(op, nonce).await,
            });
        }
        outcomes
    }

    async fn one(&self, op: &BatchOp, nonce: Option<u64>) -> Result<BatchOutcome> {
        let with_nonce = |mut m: MutationProto| {
            m.nonce = nonce.or(m.nonce);
            m
        };
        match op {
            BatchOp::Get(g) => self.get(g).await.map(BatchOutcome::Row),
            BatchOp::Put(p) => {
                let mut cells = Vec::new();
                let m = with_nonce(put_cells(p, &mut cells));
                self.mutate(&p.row, m, &cells, None)
                    .await
                    .map(|_| BatchOutcome::Done)
            }
            BatchOp::Delete(d) => {
                let mut cells = Vec::new();
                let m = with_nonce(delete_cells(d, &mut cells));
                self.mutate(&d.row, m, &cells, None)
                    .await
                    .map(|_| BatchOutcome::Done)
            }
            BatchOp::Increment(i) => self
                .mutate(&i.row, with_nonce(increment_pb(i)), &[], None)
                .await
                .map(|r| BatchOutcome::Row(r.0.unwrap_or_default())),
            BatchOp::Append(a) => self
                .mutate(&a.row, with_nonce(append_pb(a)), &[], None)
                .await
                .map(|r| BatchOutcome::Row(r.0.unwrap_or_default())),
            BatchOp::RowMutations(m) => self.mutate_row(m).await.map(BatchOutcome::Rows),
            BatchOp::CheckAndMutate(c) => self
                .check_and_mutate(c)
                .await
                .map(BatchOutcome::CheckAndMutate),
        }
    }

    /// The Multi part of a batch: an outcome for each operation it settled, None for the rest.
    async fn multi(
        &self,
        ops: &[BatchOp],
        nonces: &[Option<u64>],
    ) -> Vec<Option<Result<BatchOutcome>>> {
        let mut out: Vec<Option<Result<BatchOutcome>>> = (0..ops.len()).map(|_| None).collect();
        let Ok(regions) = self.conn.locations(self.name).await else {
            return out;
        };
        // Each region action with the cells of its puts and deletes, which travel in the
        // call's cell block in region action order.
        let mut by_server: Vec<(SocketAddr, Vec<RegionPart>)> = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            let Some(location) = locate(&regions, op.row()) else {
                continue;
            };
            let name = &location.name;
            let server = self.conn.server_of(location);
            let at = match by_server.iter().position(|(s, _)| *s == server) {
                Some(at) => at,
                None => {
                    by_server.push((server, Vec::new()));
                    by_server.len() - 1
                }
            };
            let by_region = &mut by_server[at].1;
            let (mutation, get) = match op {
                BatchOp::Get(g) => (None, Some(get_pb(g))),
                BatchOp::Put(p) => (Some(put_cells(p, &mut part(by_region, name).1)), None),
                BatchOp::Delete(d) => {
                    let cells = &mut part(by_region, name).1;
                    (Some(delete_cells(d, cells)), None)
                }
                BatchOp::Increment(i) => (Some(increment_pb(i)), None),
                BatchOp::Append(a) => (Some(append_pb(a)), None),
                // These run on their own.
                BatchOp::RowMutations(_) | BatchOp::CheckAndMutate(_) => continue,
            };
            // The batch's nonce for the operation, which a run on its own sends again.
            let mutation = mutation.map(|mut m| {
                m.nonce = nonces[index].or(m.nonce);
                m
            });
            part(by_region, name).0.action.push(pb::Action {
                index: u32::try_from(index).ok(),
                mutation,
                get,
                service_call: None,
            });
        }
        // Each server's Multi at once (on the blocking transport, one after another).
        let calls = by_server
            .into_iter()
            .map(|(server, by_region)| self.multi_on(server, ops, by_region));
        for settled in join_all(calls).await {
            for (i, outcome) in settled {
                out[i] = Some(outcome);
            }
        }
        out
    }

    /// One Multi call to `server` with its regions' actions: the outcome of each operation
    /// it settled, by index.
    async fn multi_on(
        &self,
        server: SocketAddr,
        ops: &[BatchOp],
        by_region: Vec<RegionPart>,
    ) -> Vec<(usize, Result<BatchOutcome>)> {
        let mut settled = Vec::new();
        if by_region.is_empty() {
            return settled;
        }
        let (region_action, blocks): (Vec<_>, Vec<_>) = by_region.into_iter().unzip();
        let response: MultiResponse = match self
            .conn
            .call_with_cells(
                server,
                "Multi",
                &MultiRequest {
                    region_action,
                    nonce_group: Some(nonce_group()),
                    ..MultiRequest::default()
                },
                &blocks.iter().map(Vec::as_slice).collect::<Vec<_>>(),
            )
            .await
        {
            Ok(r) => r,
            Err(_) => return settled,
        };
        for result in response.region_action_result {
            // A region that failed as a whole leaves its operations to run on their own.
            if result.exception.is_some() {
                continue;
            }
            for r in result.result_or_exception {
                let Some(i) = r.index.and_then(|i| usize::try_from(i).ok()) else {
                    continue;
                };
                let Some(op) = ops.get(i) else { continue };
                let outcome = match (r.exception, r.result) {
                    (Some(e), _) => match classify(self.name, pair_error(e)) {
                        Failure::Fatal(e) => Err(e),
                        // Runs again on its own.
                        Failure::Retry(_) | Failure::Throttled(..) => continue,
                    },
                    (None, result) => {
                        let result = result.unwrap_or_default();
                        Ok(match op {
                            BatchOp::Get(g) => BatchOutcome::Row(got(g, result)),
                            BatchOp::Increment(_) | BatchOp::Append(_) => {
                                BatchOutcome::Row(row_result(result))
                            }
                            _ => BatchOutcome::Done,
                        })
                    }
                };
                settled.push((i, outcome));
            }
        }
        settled
    }

    async fn get(&self, get: &Get) -> Result<RowResult> {
        let name = self.name;
        retrying!(self.conn, name, |regions| {
            let location = row_region(regions, &get.row)?;
            let response: GetResponse = self
                .conn
                .call(
                    self.conn.server_of(location),
                    "Get",
                    &GetRequest {
                        region: region(&location.name),
                        get: get_pb(get),
                    },
                )
                .await
                .map_err(|e| classify(name, e))?;
            Ok(got(get, response.result.unwrap_or_default()))
        })
    }

    /// Adopts prepared store files into the region holding `row` (ClientService
    /// BulkLoadHFile); the paths are the server's.
    async fn bulk_load(&self, row: &[u8], files: &[(Bytes, std::path::PathBuf)]) -> Result<()> {
        let name = self.name;
        let family_path: Vec<_> = files
            .iter()
            .map(|(family, path)| pb::bulk_load_h_file_request::FamilyPath {
                family: family.to_vec(),
                path: path.to_string_lossy().into_owned(),
            })
            .collect();
        retrying!(self.conn, name, |regions| {
            let location = row_region(regions, row)?;
            let _: pb::BulkLoadHFileResponse = self
                .conn
                .call(
                    self.conn.server_of(location),
                    "BulkLoadHFile",
                    &pb::BulkLoadHFileRequest {
                        region: region(&location.name),
                        family_path: family_path.clone(),
                        assign_seq_num: Some(false),
                        bulk_token: None,
                        copy_file: Some(true),
                        ..pb::BulkLoadHFileRequest::default()
                    },
                )
                .await
                .map_err(|e| classify(name, e))?;
            Ok(())
        })
    }

    async fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get).await?.cells.is_empty())
    }

    async fn aggregate_parts(
        &self,
        scan: &Scan,
        interpreter: crate::aggregate::Interpreter,
        what: crate::aggregate::Aggregation,
    ) -> Result<Vec<crate::aggregate::Partial>> {
        use crate::aggregate::Aggregation;
        let request = pb::AggregateRequest {
            interpreter_class_name: interpreter.class().into(),
            scan: super::scanner::scan_pb(scan, &scan.start_row, scan.include_start_row),
            interpreter_specific_bytes: Some(Vec::new()),
        }
        .encode_to_vec();
        let answers = self
            .exec_each(
                scan,
                basalt_proto::aggregate::SERVICE,
                what.method(),
                &request,
            )
            .await?;
        answers
            .into_iter()
            .map(|(_, bytes)| {
                pb::AggregateResponse::decode(bytes.as_slice())
                    .map_err(|e| e.to_string())
                    .and_then(|r| {
                        basalt_proto::aggregate::partial(
                            interpreter,
                            &r,
                            what == Aggregation::RowNum,
                        )
                    })
                    .map_err(|e| {
                        Error::storage(format!("an AggregateService answer does not decode: {e}"))
                    })
            })
            .collect()
    }

    async fn coprocessor_service(
        &self,
        range: (&[u8], &[u8]),
        service: &str,
        method: &str,
        request: &[u8],
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        let scan = Scan::new()
            .with_start_row(range.0.to_vec())
            .with_stop_row(range.1.to_vec());
        self.exec_each(&scan, service, method, request).await
    }

    /// `service.method` called with `request` through ExecService on every region `scan`
    /// reads, all at once (retried as regions move): each region's name and answer, in key
    /// order.
    async fn exec_each(
        &self,
        scan: &Scan,
        service: &str,
        method: &str,
        request: &[u8],
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        let name = self.name;
        retrying!(self.conn, name, |regions| {
            let calls = regions
                .iter()
                .filter(|l| reads(scan, l))
                .map(|l| async move {
                    let answer: pb::CoprocessorServiceResponse = self
                        .conn
                        .call(
                            self.conn.server_of(l),
                            "ExecService",
                            &pb::CoprocessorServiceRequest {
                                region: region(&l.name),
                                call: pb::CoprocessorServiceCall {
                                    row: l.start.clone(),
                                    service_name: service.into(),
                                    method_name: method.into(),
                                    request: request.to_vec(),
                                },
                            },
                        )
                        .await
                        .map_err(|e| classify(name, e))?;
                    Ok((
                        Bytes::from(l.name.clone()),
                        answer.value.value.unwrap_or_default(),
                    ))
                });
            join_all(calls)
                .await
                .into_iter()
                .collect::<std::result::Result<Vec<_>, Failure>>()
        })
    }
}

/// Whether the scan reads rows of the region at `l`.
fn reads(scan: &Scan, l: &Location) -> bool {
    // The scan's row range, low to high (a reversed scan starts at its high end).
    let (low, high) = if scan.reversed {
        (&scan.stop_row[..], &scan.start_row[..])
    } else {
        (&scan.start_row[..], &scan.stop_row[..])
    };
    let after_low = l.end.is_empty() || low < &l.end[..];
    // A forward scan's stop row is exclusive; a reversed scan's start row is inclusive.
    let before_high =
        high.is_empty() || &l.start[..] < high || (scan.reversed && l.start[..] == *high);
    after_low && before_high
}

/// Refuses a negative timestamp before it is sent, as the embedded engine does (the wire's
/// unsigned field cannot carry one, and HBase's client refuses it too).
fn no_negative(mut timestamps: impl Iterator<Item = i64>) -> Result<()> {
    match timestamps.find(|t| *t < 0) {
        Some(t) => Err(Error::NegativeTimestamp(t)),
        None => Ok(()),
    }
}

/// The region action (and its cell block) of a Multi for the region `name`, added if the call
/// has none yet.
/// A region's actions in a Multi call, with the cells of its puts and deletes.
type RegionPart = (pb::RegionAction, Vec<u8>);

fn part<'a>(
    by_region: &'a mut Vec<(pb::RegionAction, Vec<u8>)>,
    name: &[u8],
) -> &'a mut (pb::RegionAction, Vec<u8>) {
    let at = match by_region.iter().position(|(ra, _)| ra.region.value == name) {
        Some(at) => at,
        None => {
            let action = pb::RegionAction {
                region: region(name),
                atomic: None,
                action: Vec::new(),
                condition: None,
            };
            by_region.push((action, Vec::new()));
            by_region.len() - 1
        }
    };
    &mut by_region[at]
}
