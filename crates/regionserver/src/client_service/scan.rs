//! ClientService's scans: a scanner opened on the part of the scan inside the named region,
//! kept under an id with a lease, read `number_of_rows` at a time.

use super::*;
use basalt_common::acl::User;

/// One open scanner.
pub(super) struct Open {
    pub(super) scanner: RegionScanner,
    /// Whether the scan can go on past this region (a later region exists in its direction
    /// and the scan's stop row lies beyond this region).
    pub(super) more_after: bool,
    /// Bytes of cells after which a call's answer ends (at least one result goes back).
    pub(super) max_result_size: Option<u64>,
    /// The table scanned, for the throttles of later calls naming only the scanner.
    pub(super) table: basalt_common::TableName,
    /// The `next_call_seq` the next call that gives one must carry (HBase's
    /// RegionScannerHolder.nextCallSeq): a repeated or skipped call is refused, so a client
    /// retrying a `next` whose answer it lost does not silently skip those rows.
    pub(super) next_call_seq: u64,
}

impl ClientService {
    pub(super) fn scan(&self, req: &ScanRequest, user: Option<&User>) -> Outcome {
        let id = match (req.scanner_id, &req.scan) {
            (Some(id), _) => id,
            (None, Some(scan)) => self.open(req, scan, user)?,
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
        if let Some(seq) = req.next_call_seq {
            let mut open = lock_leased(&entry);
            if seq != open.next_call_seq {
                return Err(exception(
                    "org.apache.hadoop.hbase.exceptions.OutOfOrderScannerNextException",
                    format!(
                        "Expected nextCallSeq: {} But the nextCallSeq got from client: {seq}; \
                         request=scanner_id: {id}",
                        open.next_call_seq
                    ),
                    true,
                ));
            }
            open.next_call_seq += 1;
        }
        let mut results = Vec::new();
        let mut counts = (0, 0);
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
            counts = open.scanner.take_row_counts();
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
            scan_metrics: req.track_scan_metrics().then(|| scan_metrics(counts)),
            ..ScanResponse::default()
        }
        .encode_to_vec())
    }

    /// Opens a scanner over the part of `scan` inside the request's region.
    fn open(
        &self,
        req: &ScanRequest,
        s: &pb::Scan,
        user: Option<&User>,
    ) -> Result<u64, ExceptionResponse> {
        let region = self.region(req.region.as_ref())?;
        let info = region.info();
        let (scan, max_result_size) = self.region_scan(
            &region,
            s,
            req.limit_of_rows.filter(|&r| r > 0),
            req.client_handles_partials(),
            user,
        )?;
        let more_after = if s.reversed() {
            !info.start_key.is_empty()
                && (s.stop_row.as_deref().unwrap_or_default().is_empty()
                    || s.stop_row.as_deref().unwrap_or_default() < &info.start_key[..])
        } else {
            !info.end_key.is_empty()
                && (s.stop_row.as_deref().unwrap_or_default().is_empty()
                    || &info.end_key[..] < s.stop_row.as_deref().unwrap_or_default())
        };
        let scanner = region.scan(&scan).map_err(|e| from_error(&e))?;
        let id = self.next_scanner.fetch_add(1, Ordering::Relaxed);
        self.scanners.insert(
            id,
            Open {
                scanner,
                more_after,
                max_result_size,
                table: info.table.clone(),
                next_call_seq: 0,
            },
        );
        Ok(id)
    }

    /// The part of a client's Scan inside `region`, as Basalt's Scan, with the bytes per
    /// answer it asks for (at most `limit` rows; rows cut at that size only if the client
    /// `handles_partials`). Fields Basalt refuses are refused here (`check_scan`), and the
    /// families are cut to what `user` may read.
    pub(super) fn region_scan(
        &self,
        region: &Region,
        s: &pb::Scan,
        limit: Option<u32>,
        handles_partials: bool,
        user: Option<&User>,
    ) -> Result<(Scan, Option<u64>), ExceptionResponse> {
        check_scan(s)?;
        let info = region.info();
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
        self.restrict_read(user, region, &mut scan.families)?;
        let (from, to) = ts_range(s.time_range.as_ref());
        for (family, min, max) in family_time_ranges(&s.cf_time_range) {
            scan = scan.with_family_time_range(family, min, max);
        }
        // A limit on bytes per call; with partial results allowed, a larger row comes cut
        // into parts of about that size (HBase's `setMaxResultSize` and
        // `setAllowPartialResults`).
        let max_result_size = s.max_result_size.filter(|&b| b > 0);
        if let Some(bytes) = max_result_size {
            // Rows are cut only for a client that says it puts them back together
            // (`client_handles_partials`; HBase 1.0's clients do not).
            scan = scan
                .with_max_result_size(bytes)
                .with_allow_partial_results(s.allow_partial_results() && handles_partials);
        }
        // HBase 2's client sends the rows still wanted with each region's open.
        if let Some(rows) = limit {
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
            let (high, high_inclusive) = if !info.end_key.is_empty()
                && (start.is_empty() || &info.end_key[..] <= start.as_slice())
            {
                (info.end_key.to_vec(), false)
            } else {
                (start, s.include_start_row())
            };
            let (low, low_inclusive) = if stop.as_slice() < &info.start_key[..] {
                (info.start_key.to_vec(), true)
            } else {
                (stop, s.include_stop_row())
            };
            scan = scan
                .with_start_row_inclusive(Bytes::from(high), high_inclusive)
                .with_stop_row_inclusive(Bytes::from(low), low_inclusive);
        } else {
            let start = if start.as_slice() < &info.start_key[..] {
                info.start_key.to_vec()
            } else {
                start
            };
            let (stop, inclusive) = if !info.end_key.is_empty()
                && (stop.is_empty() || &info.end_key[..] <= stop.as_slice())
            {
                (info.end_key.to_vec(), false)
            } else {
                (stop, s.include_stop_row())
            };
            scan = scan
                .with_start_row_inclusive(Bytes::from(start), s.include_start_row())
                .with_stop_row_inclusive(Bytes::from(stop), inclusive);
        }
        Ok((scan, max_result_size))
    }
}

/// This call's share of a scan's server-side metrics, under HBase's names
/// (`ServerSideScanMetrics`): rows looked at, and rows a filter dropped.
fn scan_metrics((scanned, filtered): (u64, u64)) -> pb::ScanMetrics {
    let pair = |name: &str, value: u64| pb::NameInt64Pair {
        name: Some(name.to_owned()),
        value: Some(i64::try_from(value).unwrap_or(i64::MAX)),
    };
    pb::ScanMetrics {
        metrics: vec![
            pair("ROWS_SCANNED", scanned),
            pair("ROWS_FILTERED", filtered),
        ],
    }
}
