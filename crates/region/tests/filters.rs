//! Every filter of reference §3.1 on a small table (one region), through the filter language
//! where HBase lets it be named and through the API otherwise, with the results HBase
//! documents: which rows and cells come back, how wrappers and lists combine, how filters meet
//! versions, deletes and flushed files. Filters across regions: the client's
//! `filters_across_regions.rs`.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;

use basalt_common::filter::{BitOp, Comparator, FilterSpec, RowRange, parse_filter};
use basalt_common::ops::{CheckAction, CheckAndMutate, CompareOperator};
use basalt_common::{ColumnFamilyDescriptor, Delete, Get, Put, Scan, TableDescriptor};
use basalt_region::Region;
use basalt_storefile::BlockCache;
use support::{cells, create_table, create_with, host_at};

/// Rows as `row: f:q=v f:q=v`, timestamps left out.
fn scan(t: &Region, scan: Scan) -> Vec<String> {
    t.scan(&scan)
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let cells: Vec<String> = cells(&r)
                .into_iter()
                .map(|c| {
                    let (col, rest) = c.split_once('@').unwrap();
                    let (_, value) = rest.split_once('=').unwrap();
                    format!("{col}={value}")
                })
                .collect();
            format!("{}: {}", String::from_utf8_lossy(&r.row), cells.join(" "))
        })
        .collect()
}

fn filtered(t: &Region, filter: &str) -> Vec<String> {
    scan(t, Scan::new().with_filter(parse_filter(filter).unwrap()))
}

fn row_keys(t: &Region, filter: FilterSpec) -> Vec<String> {
    scan(t, Scan::new().with_filter(filter))
        .into_iter()
        .map(|r| r.split(':').next().unwrap().to_string())
        .collect()
}

/// Five rows over families `f` and `g`:
///
/// ```text
/// row1: f:a=apple  f:b=Banana f:c=cherry g:x=1
/// row2: f:a=avocado f:status=active
/// row3: f:b=blue   f:c=cyan   f:status=retired g:x=2
/// row4: f:a=almond f:d=date
/// row5: g:x=3
/// ```
fn sample(t: &Region) {
    let puts = [
        ("row1", "f", "a", "apple"),
        ("row1", "f", "b", "Banana"),
        ("row1", "f", "c", "cherry"),
        ("row1", "g", "x", "1"),
        ("row2", "f", "a", "avocado"),
        ("row2", "f", "status", "active"),
        ("row3", "f", "b", "blue"),
        ("row3", "f", "c", "cyan"),
        ("row3", "f", "status", "retired"),
        ("row3", "g", "x", "2"),
        ("row4", "f", "a", "almond"),
        ("row4", "f", "d", "date"),
        ("row5", "g", "x", "3"),
    ];
    for (row, f, q, v) in puts {
        t.put(&Put::new(row).add_column(f, q, v)).unwrap();
    }
}

fn sample_table() -> (support::Host, Region) {
    let (host, _clock) = host_at(1_000);
    let t = create_table(&host, "t", &["f", "g"]);
    sample(&t);
    (host, t)
}

#[test]
fn key_only_and_first_key_only() {
    let (_c, t) = sample_table();
    assert_eq!(
        filtered(&t, "KeyOnlyFilter()")[0],
        "row1: f:a= f:b= f:c= g:x="
    );
    let lens: Vec<Vec<u8>> = t
        .scan(&Scan::new().with_filter(parse_filter("KeyOnlyFilter(true)").unwrap()))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .cells
        .iter()
        .map(|c| c.value().to_vec())
        .collect();
    assert_eq!(lens[0], 5u32.to_be_bytes());
    assert_eq!(lens[1], 6u32.to_be_bytes());
    assert_eq!(
        filtered(&t, "FirstKeyOnlyFilter()"),
        [
            "row1: f:a=apple",
            "row2: f:a=avocado",
            "row3: f:b=blue",
            "row4: f:a=almond",
            "row5: g:x=3"
        ]
    );
}

#[test]
fn row_key_filters() {
    let (_c, t) = sample_table();
    let keys = |f: &str| row_keys(&t, parse_filter(f).unwrap());
    assert_eq!(keys("PrefixFilter('row3')"), ["row3"]);
    assert_eq!(keys("PrefixFilter('nope')"), Vec::<String>::new());
    assert_eq!(
        keys("InclusiveStopFilter('row3')"),
        ["row1", "row2", "row3"]
    );
    assert_eq!(keys("RowFilter(<, 'binary:row3')"), ["row1", "row2"]);
    assert_eq!(
        keys("RowFilter(>=, 'binary:row3')"),
        ["row3", "row4", "row5"]
    );
    assert_eq!(keys("RowFilter(=, 'binaryprefix:row')").len(), 5);
    assert_eq!(keys("RowFilter(=, 'regexstring:[24]$')"), ["row2", "row4"]);
    assert_eq!(keys("RowFilter(!=, 'substring:OW5')").len(), 4);
    // Reversed: the inclusive stop and the prefix both end the scan on the other side.
    let rev = |f: &str| {
        scan(
            &t,
            Scan::new()
                .reversed(true)
                .with_filter(parse_filter(f).unwrap()),
        )
        .into_iter()
        .map(|r| r[..4].to_string())
        .collect::<Vec<_>>()
    };
    assert_eq!(rev("InclusiveStopFilter('row4')"), ["row5", "row4"]);
    assert_eq!(rev("PrefixFilter('row2')"), ["row2"]);
}

#[test]
fn column_filters() {
    let (_c, t) = sample_table();
    assert_eq!(
        filtered(&t, "ColumnPrefixFilter('st')"),
        ["row2: f:status=active", "row3: f:status=retired"]
    );
    assert_eq!(
        filtered(&t, "MultipleColumnPrefixFilter('d', 'a', 'x')"),
        [
            "row1: f:a=apple g:x=1",
            "row2: f:a=avocado",
            "row3: g:x=2",
            "row4: f:a=almond f:d=date",
            "row5: g:x=3"
        ]
    );
    assert_eq!(
        filtered(&t, "ColumnRangeFilter('b', true, 'd', false)"),
        ["row1: f:b=Banana f:c=cherry", "row3: f:b=blue f:c=cyan",]
    );
    assert_eq!(
        filtered(&t, "ColumnRangeFilter('b', false, '', true)"),
        [
            "row1: f:c=cherry g:x=1",
            "row2: f:status=active",
            "row3: f:c=cyan f:status=retired g:x=2",
            "row4: f:d=date",
            "row5: g:x=3"
        ]
    );
    assert_eq!(
        filtered(&t, "QualifierFilter(<=, 'binary:b')"),
        [
            "row1: f:a=apple f:b=Banana",
            "row2: f:a=avocado",
            "row3: f:b=blue",
            "row4: f:a=almond"
        ]
    );
    assert_eq!(
        filtered(&t, "FamilyFilter(=, 'binary:g')"),
        ["row1: g:x=1", "row3: g:x=2", "row5: g:x=3"]
    );
    // Per row: two columns after skipping one.
    assert_eq!(
        filtered(&t, "ColumnPaginationFilter(2, 1)"),
        [
            "row1: f:b=Banana f:c=cherry",
            "row2: f:status=active",
            "row3: f:c=cyan f:status=retired",
            "row4: f:d=date",
        ]
    );
    // The API's qualifier offset: two columns from `b`.
    let by_column = FilterSpec::ColumnPagination {
        limit: 2,
        offset: 0,
        column_offset: Some("b".into()),
    };
    assert_eq!(
        scan(&t, Scan::new().with_filter(by_column)),
        [
            "row1: f:b=Banana f:c=cherry",
            "row2: f:status=active",
            "row3: f:b=blue f:c=cyan",
            "row4: f:d=date",
            "row5: g:x=3"
        ]
    );
}

#[test]
fn value_filters_and_comparators() {
    let (_c, t) = sample_table();
    assert_eq!(
        filtered(&t, "ValueFilter(=, 'substring:AN')"),
        ["row1: f:b=Banana", "row3: f:c=cyan"]
    );
    assert_eq!(
        filtered(&t, "ValueFilter(=, 'regexstring:^c')"),
        ["row1: f:c=cherry", "row3: f:c=cyan"]
    );
    // LESS keeps cells below the comparator's value (cell op value).
    assert_eq!(filtered(&t, "ValueFilter(<, 'binary:2')"), ["row1: g:x=1"]);
    assert_eq!(
        filtered(&t, "ValueFilter(>, 'binaryprefix:d')"),
        ["row3: f:status=retired"]
    );
    let bit = FilterSpec::Value(
        CompareOperator::Equal,
        Comparator::Bit {
            value: vec![0x02].into(),
            op: BitOp::And,
        },
    );
    // '2' is 0x32 and '3' 0x33: both have bit 1 set; '1' (0x31) does not.
    assert_eq!(row_keys(&t, bit), ["row3", "row5"]);
    t.put(&Put::new("row6").add_column("f", "n", 7i64.to_be_bytes().to_vec()))
        .unwrap();
    t.put(&Put::new("row7").add_column("f", "n", (-3i64).to_be_bytes().to_vec()))
        .unwrap();
    let long = FilterSpec::Value(CompareOperator::Less, Comparator::Long(0));
    assert_eq!(row_keys(&t, long), ["row7"]);
    let component = FilterSpec::Row(
        CompareOperator::Equal,
        Comparator::BinaryComponent {
            offset: 3,
            value: "6".into(),
        },
    );
    assert_eq!(row_keys(&t, component), ["row6"]);
    t.put(&Put::new("row8").add_column("f", "e", "")).unwrap();
    let null = FilterSpec::Value(CompareOperator::Equal, Comparator::Null);
    assert_eq!(row_keys(&t, null), ["row8"]);
    // An invalid pattern is an error when the scan opens, not a panic.
    let bad = FilterSpec::Value(CompareOperator::Equal, Comparator::RegexString("(".into()));
    let err = t
        .scan(&Scan::new().with_filter(bad))
        .map(|_| ())
        .unwrap_err();
    assert!(err.to_string().contains("invalid pattern"), "{err}");
}

#[test]
fn single_column_value_filters() {
    let (_c, t) = sample_table();
    // Rows without the column pass unless filterIfMissing.
    assert_eq!(
        row_keys(
            &t,
            parse_filter("SingleColumnValueFilter('f', 'status', =, 'binary:active')").unwrap()
        ),
        ["row1", "row2", "row4", "row5"]
    );
    assert_eq!(
        filtered(
            &t,
            "SingleColumnValueFilter('f', 'status', =, 'binary:active', true, true)"
        ),
        ["row2: f:a=avocado f:status=active"]
    );
    assert_eq!(
        filtered(
            &t,
            "SingleColumnValueExcludeFilter('f', 'status', =, 'binary:active', true, true)"
        ),
        ["row2: f:a=avocado"]
    );
    // latestVersionOnly=false: an older version may match.
    let (host, _clock) = host_at(1_000);
    let mut desc = TableDescriptor::named("v").unwrap();
    desc.add_family(ColumnFamilyDescriptor::new(b"f".to_vec()).with_max_versions(3));
    let v = create_with(&host, desc);
    v.put(&Put::new("r").add_column_at("f", "s", 1, "old"))
        .unwrap();
    v.put(&Put::new("r").add_column_at("f", "s", 2, "new"))
        .unwrap();
    let keys = |f: &str| row_keys(&v, parse_filter(f).unwrap());
    assert!(keys("SingleColumnValueFilter('f', 's', =, 'binary:old', true, true)").is_empty());
    assert_eq!(
        keys("SingleColumnValueFilter('f', 's', =, 'binary:old', true, false)"),
        ["r"]
    );
    // A deleted column is missing to the filter.
    v.delete(&Delete::new("r").add_columns("f", "s")).unwrap();
    v.put(&Put::new("r").add_column_at("f", "t", 5, "x"))
        .unwrap();
    assert!(keys("SingleColumnValueFilter('f', 's', =, 'binary:new', true, true)").is_empty());
    assert_eq!(
        keys("SingleColumnValueFilter('f', 's', =, 'binary:new', false, true)"),
        ["r"]
    );
}

#[test]
fn dependent_and_column_value_filters() {
    let (host, _clock) = host_at(1_000);
    let t = create_table(&host, "d", &["f"]);
    t.put(&Put::new("r1").add_column_at("f", "ref", 10, "go"))
        .unwrap();
    t.put(&Put::new("r1").add_column_at("f", "a", 10, "a10"))
        .unwrap();
    t.put(&Put::new("r1").add_column_at("f", "b", 20, "b20"))
        .unwrap();
    t.put(&Put::new("r2").add_column_at("f", "ref", 30, "stop"))
        .unwrap();
    t.put(&Put::new("r2").add_column_at("f", "a", 30, "a30"))
        .unwrap();
    assert_eq!(
        filtered(&t, "DependentColumnFilter('f', 'ref')"),
        ["r1: f:a=a10 f:ref=go", "r2: f:a=a30 f:ref=stop"]
    );
    assert_eq!(
        filtered(&t, "DependentColumnFilter('f', 'ref', true)"),
        ["r1: f:a=a10", "r2: f:a=a30"]
    );
    assert_eq!(
        filtered(
            &t,
            "DependentColumnFilter('f', 'ref', false, =, 'binary:go')"
        ),
        ["r1: f:a=a10 f:ref=go"]
    );
    // Only the matching cells of the column, unlike SingleColumnValueFilter.
    assert_eq!(
        filtered(&t, "ColumnValueFilter('f', 'a', >, 'binary:a20')"),
        ["r2: f:a=a30"]
    );
}

#[test]
fn timestamps_and_versions_after_the_filter() {
    let (host, _clock) = host_at(1_000);
    let mut desc = TableDescriptor::named("ts").unwrap();
    desc.add_family(ColumnFamilyDescriptor::new(b"f".to_vec()).with_max_versions(5));
    let t = create_with(&host, desc);
    for ts in 1..=4 {
        t.put(&Put::new("r").add_column_at("f", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let all = |f: &str| {
        scan(
            &t,
            Scan::new()
                .read_all_versions()
                .with_filter(parse_filter(f).unwrap()),
        )
    };
    assert_eq!(all("TimestampsFilter(1, 3, 99)"), ["r: f:q=v3 f:q=v1"]);
    // The filter sees every stored version; the scan's one version is the first it includes
    // (HBase 2's versions-after-filter).
    assert_eq!(filtered(&t, "ValueFilter(=, 'binary:v2')"), ["r: f:q=v2"]);
    assert_eq!(filtered(&t, "ValueFilter(<, 'binary:v4')"), ["r: f:q=v3"]);
    assert_eq!(
        scan(
            &t,
            Scan::new()
                .read_versions(2)
                .with_filter(parse_filter("ValueFilter(<, 'binary:v4')").unwrap())
        ),
        ["r: f:q=v3 f:q=v2"]
    );
}

#[test]
fn skip_while_and_lists() {
    let (_c, t) = sample_table();
    // SKIP drops a row when any cell fails.
    assert_eq!(
        row_keys(
            &t,
            parse_filter("SKIP ValueFilter(!=, 'binary:blue')").unwrap()
        ),
        ["row1", "row2", "row4", "row5"]
    );
    assert_eq!(
        filtered(
            &t,
            "PrefixFilter('row1') AND QualifierFilter(=, 'binary:b')"
        ),
        ["row1: f:b=Banana"]
    );
    assert_eq!(
        filtered(
            &t,
            "QualifierFilter(=, 'binary:d') OR ValueFilter(=, 'binary:3')"
        ),
        ["row4: f:d=date", "row5: g:x=3"]
    );
    // (F1 AND F2) OR F3, and a nested list under SKIP.
    assert_eq!(
        row_keys(
            &t,
            parse_filter(
                "(FamilyFilter(=, 'binary:g') AND ValueFilter(=, 'binary:2')) OR PrefixFilter('row4')"
            )
            .unwrap()
        ),
        ["row3", "row4"]
    );
    assert_eq!(
        row_keys(
            &t,
            parse_filter("SKIP (QualifierFilter(<, 'binary:c') OR FamilyFilter(=, 'binary:g'))")
                .unwrap()
        ),
        ["row5"]
    );
    // Stateful filters in an OR list are not shown cells they asked to skip.
    assert_eq!(
        filtered(&t, "FirstKeyOnlyFilter() OR ValueFilter(=, 'binary:cyan')"),
        [
            "row1: f:a=apple",
            "row2: f:a=avocado",
            "row3: f:b=blue f:c=cyan",
            "row4: f:a=almond",
            "row5: g:x=3"
        ]
    );
    // KeyOnly transforms only what it included.
    assert_eq!(
        filtered(&t, "KeyOnlyFilter() AND ColumnPrefixFilter('s')"),
        ["row2: f:status=", "row3: f:status="]
    );
}

#[test]
fn fuzzy_row_and_row_ranges_seek() {
    let (host, _clock) = host_at(1_000);
    let t = create_table(&host, "z", &["f"]);
    for user in 0..20 {
        for action in ["a", "b", "c"] {
            t.put(&Put::new(format!("u{user:02}_{action}_x")).add_column("f", "q", "v"))
                .unwrap();
        }
    }
    let fuzzy = FilterSpec::FuzzyRow(vec![("??_b".into(), vec![0, 1, 1, 0, 0].into())]);
    // The key and mask lengths differ: a clear error.
    let err = t
        .scan(&Scan::new().with_filter(fuzzy))
        .map(|_| ())
        .unwrap_err();
    assert!(err.to_string().contains("mask"), "{err}");
    let fuzzy = FilterSpec::FuzzyRow(vec![("u??_b".into(), vec![0, 1, 1, 0, 0].into())]);
    let keys = row_keys(&t, fuzzy);
    assert_eq!(keys.len(), 20);
    assert!(keys.iter().all(|k| k.ends_with("_b_x")), "{keys:?}");
    let ranges = FilterSpec::MultiRowRange(vec![
        RowRange {
            start: "u05".into(),
            start_inclusive: true,
            stop: "u06".into(),
            stop_inclusive: false,
        },
        RowRange {
            start: "u18_c".into(),
            start_inclusive: false,
            stop: "".into(),
            stop_inclusive: false,
        },
        RowRange {
            start: "u01_a_x".into(),
            start_inclusive: true,
            stop: "u01_b_x".into(),
            stop_inclusive: true,
        },
    ]);
    assert_eq!(
        row_keys(&t, ranges),
        [
            "u01_a_x", "u01_b_x", "u05_a_x", "u05_b_x", "u05_c_x", "u18_c_x", "u19_a_x", "u19_b_x",
            "u19_c_x"
        ]
    );
    assert!(row_keys(&t, FilterSpec::RandomRow(-1.0)).is_empty());
    assert_eq!(row_keys(&t, FilterSpec::RandomRow(2.0)).len(), 60);
}

#[test]
fn filters_read_flushed_files_and_gets() {
    let (host, _c) = host_at(1_000);
    let t = create_table(&host, "t", &["f", "g"]);
    sample(&t);
    t.flush().unwrap();
    t.put(&Put::new("row2").add_column("f", "b", "bread"))
        .unwrap();
    assert_eq!(
        filtered(&t, "ColumnPrefixFilter('b')"),
        ["row1: f:b=Banana", "row2: f:b=bread", "row3: f:b=blue"]
    );
    let get =
        Get::new("row3").with_filter(parse_filter("ValueFilter(=, 'regexstring:y')").unwrap());
    assert_eq!(
        cells(&t.get(&get).unwrap())
            .into_iter()
            .map(|c| c.split('@').next().unwrap().to_string())
            .collect::<Vec<_>>(),
        ["f:c"]
    );
    let get = Get::new("row3").with_filter(parse_filter("PrefixFilter('row1')").unwrap());
    assert!(t.get(&get).unwrap().cells.is_empty());
    // Check-and-mutate on a filter: applies when the filtered row is not empty.
    let when = |f: &str, v: &'static str| {
        t.check_and_mutate(&CheckAndMutate::if_matches(
            "row3",
            parse_filter(f).unwrap(),
            CheckAction::Put(Put::new("row3").add_column("g", "y", v)),
        ))
        .unwrap()
        .success
    };
    assert!(!when("ValueFilter(=, 'binary:nope')", "no"));
    assert!(when("ValueFilter(=, 'binary:cyan')", "yes"));
    assert_eq!(
        t.get(&Get::new("row3")).unwrap().value(b"g", b"y").unwrap(),
        b"yes"
    );
}

/// Data-block reads (cache hits plus misses) a scan makes.
fn blocks_read(cache: &BlockCache, t: &Region, scan: Scan) -> (u64, usize) {
    let before = cache.stats();
    let rows = t
        .scan(&scan)
        .unwrap()
        .inspect(|r| assert!(r.is_ok()))
        .count();
    let after = cache.stats();
    (
        after.hits + after.misses - before.hits - before.misses,
        rows,
    )
}

#[test]
fn selective_filters_seek_instead_of_reading_everything() {
    let cache = Arc::new(BlockCache::new(64 << 20));
    let host = support::host_with_cache(Arc::clone(&cache));
    let mut desc = TableDescriptor::named("big").unwrap();
    desc.add_family(ColumnFamilyDescriptor::new(b"f".to_vec()).with_block_size(1024));
    let t = create_with(&host, desc);
    for r in 0..3000 {
        t.put(&Put::new(format!("row{r:05}")).add_column("f", "q", "value-of-some-length"))
            .unwrap();
    }
    let mut wide = Put::new("wide");
    for q in 0..3000 {
        wide = wide.add_column("f", format!("q{q:05}"), "value-of-some-length");
    }
    t.put(&wide).unwrap();
    t.flush().unwrap();
    let (all, rows) = blocks_read(&cache, &t, Scan::new());
    assert_eq!(rows, 3001);
    assert!(all > 100, "{all} blocks");
    let with = |f: FilterSpec| blocks_read(&cache, &t, Scan::new().with_filter(f));
    let (prefix, rows) = with(parse_filter("PrefixFilter('row0299')").unwrap());
    assert_eq!(rows, 10);
    assert!(prefix * 10 < all, "prefix read {prefix} of {all} blocks");
    let fuzzy = FilterSpec::FuzzyRow(vec![(
        "row0299?".into(),
        vec![0, 0, 0, 0, 0, 0, 0, 1].into(),
    )]);
    let (fuzzy, rows) = with(fuzzy);
    assert_eq!(rows, 10);
    assert!(fuzzy * 10 < all, "fuzzy read {fuzzy} of {all} blocks");
    let (columns, rows) =
        with(parse_filter("PrefixFilter('wide') AND ColumnPrefixFilter('q0299')").unwrap());
    assert_eq!(rows, 1);
    assert!(
        columns * 10 < all,
        "column prefix read {columns} of {all} blocks"
    );
}
