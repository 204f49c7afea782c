//! The read path of a region: a Get's row from every store through the matcher, and scans
//! (HBase's `RegionScannerImpl` entry points).

use basalt_common::filter::FilterSpec;

use super::*;

impl Region {
    /// One row's cells in one store, as `query` asks, at the current read point (the reads
    /// of a read-modify-write, under the row's lock).
    pub(super) fn read_store_row(
        &self,
        store: usize,
        row: &[u8],
        query: StoreQuery,
    ) -> Result<Vec<Cell>> {
        let read_point = self.read_point();
        let mut view = ReadView {
            queries: vec![query],
            stores: vec![self.stores[store].view()],
            read_point,
            filter: None,
        };
        view.read_one_row(row, true)
    }

    /// The view a read of `families` takes now: each store it touches (in family order), its
    /// query and contents, the read point, and `filter` built for the region's key order.
    pub(crate) fn read_view(
        &self,
        families: &FamilyMap,
        time_range: TimeRange,
        family_time_ranges: &std::collections::BTreeMap<Bytes, TimeRange>,
        max_versions: u32,
        raw: bool,
        filter: Option<(&FilterSpec, bool)>,
    ) -> Result<ReadView> {
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
        let now = self.now();
        let query = |i: usize, columns| {
            let family = self.stores[i].family();
            let range = family_time_ranges
                .get(&family.name)
                .copied()
                .unwrap_or(time_range);
            StoreQuery::new(family, columns, range, max_versions, raw, now)
        };
        let queries: Vec<(usize, StoreQuery)> = if families.is_empty() {
            (0..self.stores.len())
                .map(|i| (i, query(i, None)))
                .collect()
        } else {
            families
                .iter()
                .map(|(family, columns)| {
                    let i = self.store_index(family)?;
                    Ok((i, query(i, columns.as_ref())))
                })
                .collect::<Result<_>>()?
        };
        let filter = match filter {
            Some((spec, reversed)) => Some(self.build_filter(spec, reversed)?),
            None => None,
        };
        // The read point first: every view taken after it holds all it sees.
        let read_point = self.read_point();
        let (indexes, queries): (Vec<usize>, Vec<StoreQuery>) = queries.into_iter().unzip();
        Ok(ReadView {
            queries,
            stores: indexes.iter().map(|i| self.stores[*i].view()).collect(),
            read_point,
            filter,
        })
    }

    /// Reads one row.
    pub(crate) fn get_stored(&self, get: &Get) -> Result<RowResult> {
        self.check_row(&get.row)?;
        self.check_serving(&get.row)?;
        self.requests.read();
        let mut view = self.read_view(
            &get.families,
            get.time_range,
            &get.family_time_ranges,
            get.max_versions,
            false,
            get.filter.as_ref().map(|spec| (spec, false)),
        )?;
        let cells = view.read_one_row(&get.row, get.cache_blocks)?;
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
        let view = self.read_view(
            &scan.families,
            scan.time_range,
            &scan.family_time_ranges,
            scan.max_versions,
            scan.raw,
            scan.filter.as_ref().map(|spec| (spec, scan.reversed)),
        )?;
        RegionScanner::new(
            view,
            scan,
            Arc::clone(&self.requests),
            Arc::clone(&self.config.metrics),
        )
    }
}
