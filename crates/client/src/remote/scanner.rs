//! A scan's rows fetched as they are read, `caching` rows a call, region after region (from the
//! last region back for a reversed scan), as HBase's `ClientScanner` reads them. A scanner the
//! server dropped (its lease ran out, the region moved, the connection broke) is opened again
//! just after the last whole row received. Written once ([`ScanState`]) for the blocking
//! [`RemoteScanner`] (an iterator) and the async [`super::AsyncScanner`] (a stream).

use std::collections::VecDeque;
use std::ops::Deref;

use super::*;

/// How many times in a row the server's scanner may be lost and opened again before the scan
/// gives up.
const MAX_RESUMES: u32 = 10;

/// The rows of one scan of a remote table. `C` is how it holds its connection: borrowed
/// (`&RemoteConnection`, for [`RemoteTable::scan`]) or shared (`Arc<RemoteConnection>`, for
/// a scanner a gateway keeps between calls).
#[derive(Debug)]
pub struct RemoteScanner<C: Deref<Target = RemoteConnection>> {
    conn: C,
    state: ScanState,
}

impl<C: Deref<Target = RemoteConnection>> RemoteScanner<C> {
    /// Opens the scan with its first call, as HBase's `ClientScanner` does, so a scan the
    /// server refuses fails here rather than at its first row.
    pub(super) fn open(conn: C, table: TableName, scan: Scan) -> Result<Self> {
        let state = block(ScanState::open(&conn.core, table, scan))?;
        Ok(RemoteScanner { conn, state })
    }
}

impl<C: Deref<Target = RemoteConnection>> Iterator for RemoteScanner<C> {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Result<RowResult>> {
        block(self.state.next(&self.conn.core))
    }
}

impl<C: Deref<Target = RemoteConnection>> Drop for RemoteScanner<C> {
    fn drop(&mut self) {
        block(self.state.close(&self.conn.core));
    }
}

/// Where a scan is, apart from its connection.
#[derive(Debug)]
pub(super) struct ScanState {
    table: TableName,
    scan: Scan,
    /// Where the rest of the scan starts, and whether that row is included: the next region's
    /// boundary, or just past the last whole row received.
    from: Bytes,
    include_from: bool,
    /// The server's scanner on the region being read, and that region.
    open: Option<(u64, Location)>,
    buffered: VecDeque<RowResult>,
    /// Whole rows handed out (the scan's limit counts them).
    rows: usize,
    /// Whether the last result received is part of a row whose rest is still to come.
    mid_row: bool,
    /// No more calls to make: the scan ends when the buffer is empty.
    finished: bool,
    /// Scanners lost in a row (reset by every answered call).
    resumes: u32,
    /// Waited in a row for throttles (reset by every answered call): bounded by the
    /// operation timeout.
    throttled_for: std::time::Duration,
}

impl ScanState {
    /// Opens the scan with its first call.
    pub(super) async fn open<T: Transport>(
        conn: &Core<T>,
        table: TableName,
        scan: Scan,
    ) -> Result<Self> {
        let mut scanner = ScanState {
            table,
            from: scan.start_row.clone(),
            include_from: scan.include_start_row,
            scan,
            open: None,
            buffered: VecDeque::new(),
            rows: 0,
            mid_row: false,
            finished: false,
            resumes: 0,
            throttled_for: std::time::Duration::ZERO,
        };
        scanner.fill(conn).await?;
        Ok(scanner)
    }

    fn limit_reached(&self) -> bool {
        self.scan.limit.is_some_and(|limit| self.rows >= limit)
    }

    fn caching(&self) -> u32 {
        u32::try_from(self.scan.caching.unwrap_or(100).max(1)).unwrap_or(100)
    }

    /// Makes calls until rows arrive or the scan is over.
    async fn fill<T: Transport>(&mut self, conn: &Core<T>) -> Result<()> {
        while self.buffered.is_empty() && !self.finished {
            if self.limit_reached() {
                self.close(conn).await;
                self.finished = true;
                break;
            }
            match self.open.take() {
                None => {
                    let (location, response) = self.open_region(conn).await?;
                    self.take(response, location);
                }
                Some((id, location)) => {
                    let next: std::result::Result<ScanResponse, RpcError> = conn
                        .call(
                            conn.server_of(&location),
                            "Scan",
                            &ScanRequest {
                                scanner_id: Some(id),
                                number_of_rows: Some(self.caching()),
                                ..ScanRequest::default()
                            },
                        )
                        .await;
                    match next {
                        Ok(response) => {
                            self.throttled_for = std::time::Duration::ZERO;
                            self.take(response, location);
                        }
                        // Refused before it ran: the same call again after the wait the
                        // server named, as for every other call.
                        Err(RpcError::Remote { class, message })
                            if class.ends_with("RpcThrottlingException") =>
                        {
                            let wait = super::throttle_wait(&message);
                            self.throttled_for += wait;
                            if self.throttled_for > conn.config.operation_timeout {
                                self.finished = true;
                                return Err(Error::Refused(format!(
                                    "throttled scanning {}, gave up after {:.1?}: {message}",
                                    self.table, self.throttled_for
                                )));
                            }
                            T::sleep(wait).await;
                            self.open = Some((id, location));
                        }
                        Err(e) => self.lost(conn, e)?,
                    }
                }
            }
        }
        Ok(())
    }

    /// The server's scanner is gone: opens another just past the last whole row (the next
    /// turn of [`RemoteScanner::fill`]), unless the failure is final or a row was cut.
    fn lost<T: Transport>(&mut self, conn: &Core<T>, e: RpcError) -> Result<()> {
        let resumable = match &e {
            RpcError::Remote { class, .. } => {
                retriable(class)
                    || ["UnknownScannerException", "ScannerResetException"]
                        .iter()
                        .any(|c| class.ends_with(c))
            }
            RpcError::Frame(_) => true,
            RpcError::Decode(_) => false,
        };
        if !resumable {
            return Err(settled(&self.table, e));
        }
        self.resumes += 1;
        if self.mid_row || self.resumes > MAX_RESUMES {
            self.finished = true;
            return Err(Error::NotServingRegion(format!(
                "the scan of {} lost its server scanner{} ({e})",
                self.table,
                if self.mid_row {
                    " in the middle of a row, which cannot be resumed"
                } else {
                    " too many times"
                }
            )));
        }
        conn.forget(&self.table);
        Ok(())
    }

    /// Opens a server scanner on the region holding `from` (retried until the operation
    /// timeout), with the first rows.
    async fn open_region<T: Transport>(&self, conn: &Core<T>) -> Result<(Location, ScanResponse)> {
        let scan = &self.scan;
        let remaining = scan.limit.map(|l| l.saturating_sub(self.rows));
        let caching = self.caching();
        // A limit within one call's rows: ask for exactly that and close at once (one round
        // trip, as HBase's small scans). Only when every row comes whole and no size cap can
        // end the call early.
        let last = remaining
            .and_then(|r| u32::try_from(r).ok())
            .filter(|&r| r <= caching && scan.batch.is_none() && scan.max_result_size.is_none());
        let table = &self.table;
        retrying!(conn, table, |regions| {
            let location = if scan.reversed {
                locate_below(regions, &self.from, self.include_from)
            } else {
                locate(regions, &self.from)
            }
            .ok_or_else(|| Failure::Retry("no cached region holds the scan's start".into()))?;
            let response: ScanResponse = conn
                .call(
                    conn.server_of(location),
                    "Scan",
                    &ScanRequest {
                        region: Some(region(&location.name)),
                        scan: Some(scan_pb(scan, &self.from, self.include_from)),
                        number_of_rows: Some(last.unwrap_or(caching)),
                        close_scanner: last.map(|_| true),
                        limit_of_rows: remaining.and_then(|r| u32::try_from(r).ok()),
                        // Rows cut at max_result_size are put back together by the caller's
                        // `allow_partial_results` choice, as HBase's client does.
                        client_handles_partials: Some(true),
                        ..ScanRequest::default()
                    },
                )
                .await
                .map_err(|e| classify(table, e))?;
            Ok((location.clone(), response))
        })
    }

    /// Keeps a response's rows, and where the scan goes on: the same server scanner, the next
    /// region, or nowhere.
    fn take(&mut self, mut response: ScanResponse, location: Location) {
        self.resumes = 0;
        for result in response.results.drain(..) {
            let row = row_result(result);
            self.mid_row = row.partial;
            if !row.partial {
                self.from = row.row.clone();
                self.include_from = false;
            }
            self.buffered.push_back(row);
        }
        // False once the server says the whole scan is over (a filter that is done).
        if !response.more_results.unwrap_or(true) {
            self.finished = true;
            return;
        }
        if let Some(id) = response.scanner_id
            && response.more_results_in_region.unwrap_or(false)
        {
            self.open = Some((id, location));
            return;
        }
        // The region's part is done (the server closed its scanner): on to the region after
        // it going forward, before it going back, unless that is past the stop row.
        let stop = &self.scan.stop_row;
        let (next, past_stop) = if self.scan.reversed {
            let past = !stop.is_empty() && location.start[..] <= stop[..];
            (location.start, past)
        } else {
            let past = !stop.is_empty() && location.end[..] >= stop[..];
            (location.end, past)
        };
        if next.is_empty() || past_stop {
            self.finished = true;
            return;
        }
        self.from = Bytes::from(next);
        // Forward, the next region starts at this one's end; back, the rows go on below this
        // one's start.
        self.include_from = !self.scan.reversed;
        self.mid_row = false;
    }

    /// Closes the server's scanner, if one is open (best effort: an unreachable server drops
    /// it when its lease ends).
    pub(super) async fn close<T: Transport>(&mut self, conn: &Core<T>) {
        if let Some((id, location)) = self.open.take() {
            let _: std::result::Result<ScanResponse, RpcError> = conn
                .call(conn.server_of(&location), "Scan", &close_request(id))
                .await;
        }
    }

    /// The scanner the server has open for this scan, if any (to close it elsewhere).
    pub(super) fn take_open(&mut self) -> Option<(u64, Location)> {
        self.open.take()
    }

    /// The next row (or part of one), None at the end.
    pub(super) async fn next<T: Transport>(&mut self, conn: &Core<T>) -> Option<Result<RowResult>> {
        if self.limit_reached() {
            self.close(conn).await;
            return None;
        }
        if let Err(e) = self.fill(conn).await {
            self.finished = true;
            self.buffered.clear();
            return Some(Err(e));
        }
        let row = self.buffered.pop_front()?;
        if !row.partial {
            self.rows += 1;
        }
        Some(Ok(row))
    }
}

/// The call that closes the server's scanner `id`.
pub(super) fn close_request(id: u64) -> ScanRequest {
    ScanRequest {
        scanner_id: Some(id),
        close_scanner: Some(true),
        number_of_rows: Some(0),
        ..ScanRequest::default()
    }
}

/// The protobuf Scan for the part of `scan` from `from` on.
pub(super) fn scan_pb(scan: &Scan, from: &[u8], include_from: bool) -> pb::Scan {
    pb::Scan {
        reversed: Some(scan.reversed),
        column: pb_columns(&scan.families),
        start_row: Some(from.to_vec()),
        stop_row: (!scan.stop_row.is_empty()).then(|| scan.stop_row.to_vec()),
        include_start_row: Some(include_from),
        include_stop_row: Some(scan.include_stop_row),
        time_range: pb_time_range(&scan.time_range),
        max_versions: Some(scan.max_versions),
        cache_blocks: Some(scan.cache_blocks),
        batch_size: scan.batch.and_then(|b| u32::try_from(b).ok()),
        filter: scan.filter.as_ref().map(filter_pb),
        cf_time_range: pb_family_time_ranges(&scan.family_time_ranges),
        max_result_size: scan.max_result_size,
        allow_partial_results: scan.max_result_size.map(|_| scan.allow_partial_results),
        attribute: if scan.raw {
            vec![pb::NameBytesPair {
                name: basalt_proto::RAW_ATTRIBUTE.into(),
                value: Some(vec![0xff]),
            }]
        } else {
            Vec::new()
        },
        ..pb::Scan::default()
    }
}
