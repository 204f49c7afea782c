//! The region normalizer (HBase's SimpleRegionNormalizer): for each table with
//! NORMALIZATION_ENABLED, split the regions larger than twice the table's average region size
//! and merge runs of neighbours that together stay within it.
//!
//! Sizes are store file sizes in whole MiB, as the region servers report them and HBase's
//! normalizer reads them. The average is the table's NORMALIZER_TARGET_REGION_SIZE_MB, or its
//! total size over NORMALIZER_TARGET_REGION_COUNT, or over its region count. A region is merged
//! only when it is at least `hbase.normalizer.merge.min_region_age.days` old (3) and
//! `hbase.normalizer.merge.min_region_size.mb` large (1), and only in tables of at least
//! `hbase.normalizer.min.region.count` regions (3); `hbase.normalizer.split.enabled` and
//! `hbase.normalizer.merge.enabled` turn either half off. Each key is read from the table's
//! attributes, then its CONFIGURATION, then the master's settings file, as HBase reads them.
//!
//! HBase merges a whole run of regions in one procedure; Basalt merges two regions at a time
//! and a merged region reads its parents' files through references until it is compacted, so
//! a run is merged in pairs, and what is left joins on a later run.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use basalt_common::{RegionInfo, Result, TableDescriptor, TableName};

use crate::master::{HostedTable, Master};
use crate::procedures;

/// What one table's plan does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Split(RegionInfo),
    /// Two or more adjacent regions, in key order.
    Merge(Vec<RegionInfo>),
}

/// The normalizer's settings for one table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Settings {
    split: bool,
    merge: bool,
    min_region_count: usize,
    min_age_days: u64,
    min_size_mb: u64,
}

fn setting<T: std::str::FromStr>(
    table: &TableDescriptor,
    site: &std::collections::BTreeMap<String, String>,
    key: &str,
    default: T,
) -> T {
    table
        .metadata
        .get(key)
        .or_else(|| table.configuration.get(key))
        .or_else(|| site.get(key))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

impl Settings {
    fn of(table: &TableDescriptor, master: &Master) -> Self {
        let site = master.settings.file_values();
        Settings {
            split: setting(table, &site, "hbase.normalizer.split.enabled", true)
                && master.split_on.load(Ordering::Acquire)
                && table.split_enabled,
            merge: setting(table, &site, "hbase.normalizer.merge.enabled", true)
                && master.merge_on.load(Ordering::Acquire)
                && table.merge_enabled,
            min_region_count: setting(table, &site, "hbase.normalizer.min.region.count", 3usize)
                .max(1),
            min_age_days: setting(
                table,
                &site,
                "hbase.normalizer.merge.min_region_age.days",
                3,
            ),
            min_size_mb: setting(table, &site, "hbase.normalizer.merge.min_region_size.mb", 1),
        }
    }
}

/// The plans for one table's regions (key order, each with its size in MiB) at `now_ms`.
fn plan(
    table: &TableDescriptor,
    regions: &[(RegionInfo, u64)],
    s: &Settings,
    now_ms: i64,
) -> Vec<Plan> {
    if regions.is_empty() {
        return Vec::new();
    }
    let total: u64 = regions.iter().map(|(_, mb)| mb).sum();
    let average = if let Some(size) = table.normalizer_target_region_size_mb.filter(|s| *s > 0) {
        size as f64
    } else if let Some(count) = table.normalizer_target_region_count.filter(|c| *c > 0) {
        total as f64 / f64::from(count)
    } else {
        total as f64 / regions.len() as f64
    };
    let mut plans = Vec::new();
    if s.split {
        for (info, mb) in regions {
            if *mb as f64 > 2.0 * average {
                plans.push(Plan::Split(info.clone()));
            }
        }
    }
    let whole_average = average as u64;
    if !s.merge || regions.len() < s.min_region_count || whole_average < s.min_size_mb {
        return plans;
    }
    let min_age_ms = i64::try_from(s.min_age_days.saturating_mul(86_400_000)).unwrap_or(i64::MAX);
    let mergeable = |info: &RegionInfo, mb: u64| {
        now_ms.saturating_sub(info.region_id) >= min_age_ms && mb >= s.min_size_mb
    };
    // Walks the regions once, gathering runs of neighbours that fit the average together.
    let mut run: Vec<RegionInfo> = Vec::new();
    let mut run_mb = 0;
    let close = |run: &mut Vec<RegionInfo>, plans: &mut Vec<Plan>| {
        if run.len() > 1 {
            plans.push(Plan::Merge(std::mem::take(run)));
        }
        run.clear();
    };
    for (info, mb) in regions {
        if !mergeable(info, *mb) {
            close(&mut run, &mut plans);
            run_mb = 0;
            continue;
        }
        let fits = run.is_empty()
            || (run.len() == 1 && run_mb == 0)
            || *mb == 0
            || mb + run_mb <= whole_average;
        if !fits {
            close(&mut run, &mut plans);
            run_mb = 0;
        }
        run.push(info.clone());
        run_mb += mb;
    }
    close(&mut run, &mut plans);
    plans
}

/// Every open region's store file size in MiB, by region name, from the servers' loads (a
/// server that does not answer now has its regions left alone this time).
fn region_sizes(master: &Master) -> HashMap<Vec<u8>, u64> {
    master
        .servers
        .region_loads()
        .into_iter()
        .map(|(name, load)| (name, u64::from(load.storefile_size_mb.unwrap_or(0))))
        .collect()
}

/// The tables a normalizer run looks at: those named (every table if none is), user tables
/// that are enabled and ask for it.
fn candidates(master: &Master, only: &[TableName]) -> Vec<Arc<HostedTable>> {
    master
        .tables()
        .values()
        .filter(|t| only.is_empty() || only.contains(&t.name))
        .filter(|t| !t.name.is_system() && t.is_enabled() && t.descriptor().normalization_enabled)
        .cloned()
        .collect()
}

/// Runs the normalizer once over the tables named (all if none is): false if it is switched
/// off (HBase's `normalize`). Returns the splits and merges it made.
pub fn normalize(master: &Master, only: &[TableName]) -> Result<Option<(usize, usize)>> {
    if !master.normalizer_on.load(Ordering::Acquire) {
        return Ok(None);
    }
    master.check_open()?;
    let sizes = region_sizes(master);
    let now = master.clock.now_millis();
    let (mut splits, mut merges) = (0, 0);
    for table in candidates(master, only) {
        let descriptor = table.descriptor();
        let regions: Vec<(RegionInfo, u64)> = table
            .placed()
            .into_iter()
            .map(|p| {
                let mb = sizes.get(&p.info.region_name()[..]).copied();
                (p.info, mb)
            })
            // A region no server reports (in transition) is left out, as HBase leaves it.
            .filter_map(|(info, mb)| mb.map(|mb| (info, mb)))
            .collect();
        let plans = plan(
            &descriptor,
            &regions,
            &Settings::of(&descriptor, master),
            now,
        );
        basalt_common::log::log("normalizer", basalt_common::log::Level::Debug, || {
            format!("{}: {} regions, plans {plans:?}", table.name, regions.len())
        });
        for p in plans {
            // A plan that cannot run now (the region moved or split meanwhile) waits for the
            // next run, as HBase's does.
            match p {
                Plan::Split(info) => {
                    if procedures::split_region(master, &table, &info, None).is_ok() {
                        splits += 1;
                    }
                }
                Plan::Merge(run) => {
                    for pair in run.chunks_exact(2) {
                        if procedures::merge_regions(master, &table, &pair[0], &pair[1]).is_ok() {
                            merges += 1;
                        }
                    }
                }
            }
        }
    }
    Ok(Some((splits, merges)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::Bytes;

    fn regions(sizes: &[u64], id: i64) -> Vec<(RegionInfo, u64)> {
        let table = TableName::parse("t").unwrap();
        let keys: Vec<Bytes> = (0..=sizes.len())
            .map(|i| match i {
                0 => Bytes::new(),
                i if i == sizes.len() => Bytes::new(),
                i => Bytes::from(vec![b'a' + i as u8]),
            })
            .collect();
        sizes
            .iter()
            .enumerate()
            .map(|(i, mb)| {
                let info = RegionInfo::new(table.clone(), keys[i].clone(), keys[i + 1].clone(), id);
                (info, *mb)
            })
            .collect()
    }

    fn settings() -> Settings {
        Settings {
            split: true,
            merge: true,
            min_region_count: 3,
            min_age_days: 0,
            min_size_mb: 0,
        }
    }

    fn shape(plans: &[Plan]) -> Vec<String> {
        plans
            .iter()
            .map(|p| match p {
                Plan::Split(r) => format!("split {:?}", r.start_key),
                Plan::Merge(rs) => format!("merge {}", rs.len()),
            })
            .collect()
    }

    #[test]
    fn splits_the_oversized_and_merges_small_neighbours() {
        let table = TableDescriptor::new(TableName::parse("t").unwrap());
        // Average 2.5: the 10 MiB region splits; the three empty ones form one run.
        let plans = plan(&table, &regions(&[0, 0, 0, 10], 1), &settings(), 10);
        assert_eq!(shape(&plans), ["split b\"d\"", "merge 3"]);
        // Even regions: nothing to do.
        assert!(plan(&table, &regions(&[4, 5, 4, 5], 1), &settings(), 10).is_empty());
    }

    #[test]
    fn young_small_or_few_regions_are_not_merged() {
        let table = TableDescriptor::new(TableName::parse("t").unwrap());
        let mut s = settings();
        s.min_age_days = 3;
        assert!(plan(&table, &regions(&[1, 1, 1, 1], 1_000), &s, 2_000).is_empty());
        // The two empty regions fit the 1 MiB average together, unless empty regions are
        // below the size floor.
        let sizes = regions(&[0, 0, 2, 2], 1);
        assert_eq!(shape(&plan(&table, &sizes, &settings(), 10)), ["merge 2"]);
        let s = Settings {
            min_size_mb: 1,
            ..settings()
        };
        assert!(plan(&table, &sizes, &s, 10).is_empty());
        let s = Settings {
            min_region_count: 5,
            ..settings()
        };
        assert!(plan(&table, &regions(&[0, 0, 0, 0], 1), &s, 10).is_empty());
    }

    #[test]
    fn a_target_size_sets_the_average() {
        let mut table = TableDescriptor::new(TableName::parse("t").unwrap());
        table.normalizer_target_region_size_mb = Some(1);
        let plans = plan(&table, &regions(&[3, 1, 1], 1), &settings(), 10);
        assert_eq!(shape(&plans), ["split b\"\""]);
    }
}
