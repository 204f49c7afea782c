//! The read path of a region: a Get's row from every store through the matcher, and scans
//! (HBase's `RegionScannerImpl` entry points).

use super::*;

impl Region {
    pub(super) fn read_store_row(
        &self,
        store: usize,
        row: &[u8],
        query: &StoreQuery,
        read_point: u64,
        filter: Option<&mut (dyn Filter + 'static)>,
        out: &mut Vec<Cell>,
    ) -> Result<bool> {
        let view = self.stores[store].view();
        let guard = crossbeam_epoch::pin();
        let files = FileFilter {
            row: Some(row),
            min_timestamp: query.time_range.min,
            cache_blocks: query.cache_blocks,
        };
        let mut cursor = view.cursor(read_point, &guard, files);
        cursor.seek(&Cell::first_on_row(row))?;
        read_row(cursor.as_mut(), row, query, filter, out)
    }

    /// The queries a read makes of each store it touches, in family order.
    pub(crate) fn store_queries(
        &self,
        families: &FamilyMap,
        time_range: TimeRange,
        family_time_ranges: &std::collections::BTreeMap<Bytes, TimeRange>,
        max_versions: u32,
        raw: bool,
        now: i64,
    ) -> Result<Vec<(usize, StoreQuery)>> {
        time_range.validate()?;
        for (family, range) in family_time_ranges {
            range.validate()?;
            self.store_index(family)?;
        }
        if max_versions == 0 {
            return Err(Error::InvalidArgument(
                "max versions must be at least 1".into(),
            ));
        }
        let make = |i: usize, columns| {
            let family = self.stores[i].family();
            let range = family_time_ranges
                .get(&family.name)
                .copied()
                .unwrap_or(time_range);
            StoreQuery::new(family, columns, range, max_versions, raw, now)
        };
        if families.is_empty() {
            return Ok((0..self.stores.len()).map(|i| (i, make(i, None))).collect());
        }
        families
            .iter()
            .map(|(family, columns)| {
                let i = self.store_index(family)?;
                Ok((i, make(i, columns.as_ref())))
            })
            .collect()
    }

    /// Reads one row.
    pub(crate) fn get_stored(&self, get: &Get) -> Result<RowResult> {
        self.check_row(&get.row)?;
        self.check_serving(&get.row)?;
        self.requests.read();
        let now = self.now();
        let mut queries = self.store_queries(
            &get.families,
            get.time_range,
            &get.family_time_ranges,
            get.max_versions,
            false,
            now,
        )?;
        for (_, query) in &mut queries {
            query.cache_blocks = get.cache_blocks;
        }
        let read_point = self.read_point();
        let mut cells = Vec::new();
        // A Get is a scan of one row: the filter runs the same protocol.
        let mut filter = match &get.filter {
            Some(spec) => Some(self.build_filter(spec, false)?),
            None => None,
        };
        let skipped = filter
            .as_deref_mut()
            .is_some_and(|f| !matches!(start_row(f, &get.row, false), RowVerdict::Read));
        if !skipped {
            for (store, query) in &queries {
                let done = self.read_store_row(
                    *store,
                    &get.row,
                    query,
                    read_point,
                    filter.as_deref_mut(),
                    &mut cells,
                )?;
                if done {
                    break;
                }
            }
            if let Some(f) = filter.as_deref_mut()
                && !finish_row(f, &mut cells)
            {
                cells.clear();
            }
        }
        Ok(RowResult {
            row: get.row.clone(),
            cells,
            partial: false,
        })
    }

    /// Opens a scanner over the rows `scan` selects, at the current read point.
    pub(crate) fn scan_stored(&self, scan: &Scan) -> Result<RegionScanner> {
        scan.validate()?;
        if self.is_closed() {
            return Err(self.not_serving());
        }
        RegionScanner::new(self, scan)
    }
}
