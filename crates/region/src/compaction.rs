//! Compaction: which files to merge (a pure policy) and which cells a major compaction keeps.

use basalt_common::schema::KeepDeletedCells;
use basalt_common::{Cell, CellType, ColumnFamilyDescriptor};

/// HBase's compaction settings (`hbase.hstore.compaction.*`).
#[derive(Debug, Clone)]
pub struct CompactionConfig {
    /// Fewest files a minor compaction merges (`compaction.min`, 3).
    pub min_files: usize,
    /// Most files a minor compaction merges (`compaction.max`, 10).
    pub max_files: usize,
    /// A file may join a selection only if it is at most this times the size of the others
    /// in it (`compaction.ratio`, 1.2).
    pub ratio: f64,
    /// Files smaller than this always qualify (`compaction.min.size`: the flush size).
    pub min_size: u64,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        CompactionConfig {
            min_files: 3,
            max_files: 10,
            ratio: 1.2,
            min_size: 128 * 1024 * 1024,
        }
    }
}

impl CompactionConfig {
    /// HBase's keys in a table's CONFIGURATION (`hbase.hstore.compaction.min`, `.max`,
    /// `.ratio`, `.min.size`) over the defaults; `min.size` defaults to the flush size.
    pub fn from_configuration(
        configuration: &std::collections::BTreeMap<String, String>,
        flush_size: u64,
    ) -> Result<Self, String> {
        let mut config = CompactionConfig {
            min_size: flush_size,
            ..CompactionConfig::default()
        };
        let get = |key: &str| configuration.get(key).map(|v| v.trim());
        let bad = |key: &str, v: &str| format!("{key} = {v:?} is not valid");
        if let Some(v) = get("hbase.hstore.compaction.min") {
            config.min_files = v
                .parse()
                .ok()
                .filter(|&n| n >= 2)
                .ok_or_else(|| bad("hbase.hstore.compaction.min (at least 2)", v))?;
        }
        if let Some(v) = get("hbase.hstore.compaction.max") {
            config.max_files = v
                .parse()
                .map_err(|_| bad("hbase.hstore.compaction.max", v))?;
        }
        if let Some(v) = get("hbase.hstore.compaction.ratio") {
            config.ratio = v
                .parse()
                .ok()
                .filter(|r: &f64| *r > 0.0)
                .ok_or_else(|| bad("hbase.hstore.compaction.ratio (positive)", v))?;
        }
        if let Some(v) = get("hbase.hstore.compaction.min.size") {
            config.min_size = v
                .parse()
                .map_err(|_| bad("hbase.hstore.compaction.min.size", v))?;
        }
        if config.max_files < config.min_files {
            return Err(format!(
                "hbase.hstore.compaction.max ({}) is below hbase.hstore.compaction.min ({})",
                config.max_files, config.min_files
            ));
        }
        Ok(config)
    }
}

/// HBase's exploring policy: among every contiguous window of `min_files..=max_files` files
/// (oldest first) in which each file is at most `ratio` times the sum of the others (or
/// smaller than `min_size`), the one with the most files, then the smallest total size.
/// Returns the window as `start..end` indices into `sizes`, or `None` when nothing qualifies.
pub fn select_minor(sizes: &[u64], config: &CompactionConfig) -> Option<std::ops::Range<usize>> {
    let mut best: Option<(std::ops::Range<usize>, u64)> = None;
    let min = config.min_files.max(2);
    for start in 0..sizes.len() {
        for end in (start + min)..=(start + config.max_files).min(sizes.len()) {
            let window = &sizes[start..end];
            let total: u64 = window.iter().sum();
            let in_ratio = window
                .iter()
                .all(|&s| s < config.min_size || s as f64 <= config.ratio * (total - s) as f64);
            if !in_ratio {
                continue;
            }
            let better = match &best {
                None => true,
                Some((b, b_total)) => {
                    window.len() > b.len() || (window.len() == b.len() && total < *b_total)
                }
            };
            if better {
                best = Some((start..end, total));
            }
        }
    }
    best.map(|(range, _)| range)
}

/// What a major compaction keeps of one row of one store (cells in store order), as HBase's
/// major compaction does (default, `NEW_VERSION_BEHAVIOR` false):
///
/// - without KEEP_DELETED_CELLS, delete markers and the puts they mask are dropped; with TRUE
///   both stay, with TTL they stay until the marker itself has expired;
/// - a repeat of a (timestamp, type) already kept is a shadowed duplicate and goes;
/// - of a column's puts, the newest VERSIONS are kept (masked puts count only when kept);
/// - puts past their own TTL go, and so do puts past the family TTL, except the newest
///   MIN_VERSIONS.
pub fn retain_for_major(row: &[Cell], family: &ColumnFamilyDescriptor, now: i64) -> Vec<Cell> {
    let oldest = family
        .ttl_millis()
        .map_or(i64::MIN, |ttl| now.saturating_sub(ttl));
    if family.new_version_behavior {
        return retain_by_write_order(row, family, oldest, now);
    }
    let mut family_delete: Option<i64> = None;
    let mut family_versions: Vec<i64> = Vec::new();
    for c in row.iter().filter(|c| c.qualifier().is_empty()) {
        match c.cell_type {
            CellType::DeleteFamily => family_delete = family_delete.max(Some(c.timestamp)),
            CellType::DeleteFamilyVersion => family_versions.push(c.timestamp),
            _ => {}
        }
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < row.len() {
        let q = row[i].qualifier();
        let end = i + row[i..].iter().take_while(|c| c.qualifier() == q).count();
        retain_column(
            &row[i..end],
            family,
            oldest,
            now,
            family_delete,
            &family_versions,
            &mut out,
        );
        i = end;
    }
    out
}

/// What a major compaction keeps under NEW_VERSION_BEHAVIOR (which create and alter allow
/// only without KEEP_DELETED_CELLS): every put the write order leaves visible (`crate::nvb`),
/// less the expired ones; no marker. Every cell a marker masks is in the compaction (it was
/// written before the marker, so before any cell still in memory), so dropping the markers
/// with the cells they mask changes no read, and a version once out of VERSIONS never comes
/// back, so it can go too.
fn retain_by_write_order(
    row: &[Cell],
    family: &ColumnFamilyDescriptor,
    oldest: i64,
    now: i64,
) -> Vec<Cell> {
    let mut tracker = crate::nvb::NvbTracker::new(family.max_versions);
    tracker.start_row();
    let mut out = Vec::new();
    let mut qualifier: Option<&[u8]> = None;
    let mut versions = 0u32;
    for c in row {
        if qualifier != Some(c.qualifier()) {
            qualifier = Some(c.qualifier());
            tracker.start_column(c.qualifier().is_empty());
            versions = 0;
        }
        let ts = c.timestamp;
        if c.cell_type.is_delete() {
            tracker.add_marker(c.cell_type, ts, c.seq_id);
            continue;
        }
        if c.ttl_ms
            .is_some_and(|ttl| ts.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)) < now)
        {
            continue;
        }
        if tracker.hides_put(ts, c.seq_id) {
            continue;
        }
        versions += 1;
        if ts < oldest && versions > family.min_versions {
            continue;
        }
        out.push(c.clone());
    }
    out
}

fn retain_column(
    column: &[Cell],
    family: &ColumnFamilyDescriptor,
    oldest: i64,
    now: i64,
    family_delete: Option<i64>,
    family_versions: &[i64],
    out: &mut Vec<Cell>,
) {
    let keep_deleted = family.keep_deleted_cells;
    let marker_kept = |ts: i64| match keep_deleted {
        KeepDeletedCells::True => true,
        KeepDeletedCells::Ttl => ts >= oldest,
        KeepDeletedCells::False => false,
    };
    let mut column_delete: Option<i64> = None;
    let mut column_versions: Vec<i64> = Vec::new();
    let mut last: Option<(i64, CellType)> = None;
    let mut versions = 0u32;
    for c in column {
        let ts = c.timestamp;
        if last == Some((ts, c.cell_type)) {
            continue;
        }
        if c.cell_type.is_delete() {
            match c.cell_type {
                CellType::DeleteColumn => column_delete = column_delete.max(Some(ts)),
                CellType::Delete => column_versions.push(ts),
                _ => {}
            }
            if marker_kept(ts) {
                out.push(c.clone());
                last = Some((ts, c.cell_type));
            }
            continue;
        }
        if c.ttl_ms
            .is_some_and(|ttl| ts.saturating_add(i64::try_from(ttl).unwrap_or(i64::MAX)) < now)
        {
            continue;
        }
        let masked = family_delete.is_some_and(|d| ts <= d)
            || column_delete.is_some_and(|d| ts <= d)
            || family_versions.contains(&ts)
            || column_versions.contains(&ts);
        if masked && keep_deleted == KeepDeletedCells::False {
            continue;
        }
        versions += 1;
        if versions > family.max_versions {
            continue;
        }
        if ts < oldest && versions > family.min_versions {
            continue;
        }
        out.push(c.clone());
        last = Some((ts, c.cell_type));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_come_from_the_table_configuration() {
        let mut conf = std::collections::BTreeMap::new();
        let c = CompactionConfig::from_configuration(&conf, 1 << 20).unwrap();
        assert_eq!(
            (c.min_files, c.max_files, c.ratio, c.min_size),
            (3, 10, 1.2, 1 << 20)
        );
        conf.insert("hbase.hstore.compaction.min".to_owned(), "5".to_owned());
        conf.insert("hbase.hstore.compaction.ratio".to_owned(), "2.5".to_owned());
        let c = CompactionConfig::from_configuration(&conf, 1 << 20).unwrap();
        assert_eq!((c.min_files, c.ratio), (5, 2.5));
        conf.insert("hbase.hstore.compaction.max".to_owned(), "4".to_owned());
        assert!(
            CompactionConfig::from_configuration(&conf, 0)
                .unwrap_err()
                .contains("below")
        );
        conf.insert("hbase.hstore.compaction.min".to_owned(), "1".to_owned());
        assert!(CompactionConfig::from_configuration(&conf, 0).is_err());
    }

    #[test]
    fn exploring_picks_the_most_files_then_the_smallest() {
        let cfg = CompactionConfig {
            min_size: 0,
            ..CompactionConfig::default()
        };
        assert_eq!(select_minor(&[10, 10], &cfg), None, "fewer than min");
        assert_eq!(select_minor(&[10, 10, 10], &cfg), Some(0..3));
        // A huge old file is left out: it is far over 1.2x the others.
        assert_eq!(select_minor(&[1000, 10, 10, 10, 10], &cfg), Some(1..5));
        let many = vec![5u64; 15];
        assert_eq!(
            select_minor(&many, &cfg).map(|r| r.len()),
            Some(10),
            "at most max"
        );
        // Files below min_size always qualify.
        let small = CompactionConfig {
            min_size: 100,
            ..CompactionConfig::default()
        };
        assert_eq!(select_minor(&[90, 1, 1], &small), Some(0..3));
    }

    fn put(q: &str, ts: i64) -> Cell {
        Cell::put(b"r", b"cf", q.as_bytes(), ts, format!("v{ts}").as_bytes())
    }

    fn marker(q: &str, ts: i64, t: CellType) -> Cell {
        Cell::new(b"r", b"cf", q.as_bytes(), ts, t, b"")
    }

    fn names(cells: &[Cell]) -> Vec<String> {
        cells
            .iter()
            .map(|c| {
                format!(
                    "{}@{}{}",
                    String::from_utf8_lossy(c.qualifier()),
                    c.timestamp,
                    if c.cell_type.is_delete() { "x" } else { "" }
                )
            })
            .collect()
    }

    #[test]
    fn major_drops_markers_masked_surplus_and_expired() {
        let cf = ColumnFamilyDescriptor::new("cf").with_max_versions(2);
        let row = [
            marker("", 3, CellType::DeleteFamily),
            put("a", 9),
            put("a", 8),
            put("a", 7),
            put("b", 5),
            marker("b", 4, CellType::DeleteColumn),
            put("b", 4),
            put("b", 2),
            put("c", 3),
        ];
        assert_eq!(
            names(&retain_for_major(&row, &cf, 100)),
            ["a@9", "a@8", "b@5"]
        );
        let kdc = cf.clone().with_keep_deleted_cells(KeepDeletedCells::True);
        assert_eq!(
            names(&retain_for_major(&row, &kdc, 100)),
            ["@3x", "a@9", "a@8", "b@5", "b@4x", "b@4", "c@3"],
            "deleted cells stay, within VERSIONS"
        );
        let ttl = ColumnFamilyDescriptor::new("cf")
            .with_ttl_seconds(1)
            .with_min_versions(1);
        let row = [put("a", 500), put("a", 400), put("a", 2_000)];
        let mut sorted = row.to_vec();
        sorted.sort_by(basalt_common::cell::compare_in_store);
        assert_eq!(names(&retain_for_major(&sorted, &ttl, 2_600)), ["a@2000"]);
        assert_eq!(
            names(&retain_for_major(&sorted, &ttl, 5_000)),
            ["a@2000"],
            "MIN_VERSIONS keeps the newest"
        );
    }
}
