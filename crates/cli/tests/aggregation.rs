//! The aggregation endpoint on a real cluster (issue 50): a table split into six regions over
//! two region server processes; the Rust client's `aggregate` (one AggregateService call per
//! region, to the server holding it, merged) gives what the rows the client reads give, for
//! every aggregation, a range, a filter and an empty range.

mod support;

use basalt_embedded::prelude::*;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::aggregate::{Aggregation, Interpreter, Number};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, DataClient, FilterSpec, Put, Scan, ServerAdmin, TableDescriptor,
    TableName,
};
use support::cluster::Cluster;

#[test]
fn aggregations_across_regions_and_servers_match_the_rows() {
    let cluster = Cluster::start(2, 1);
    let conn = cluster.connect();
    let splits: Vec<Bytes> = ["r10", "r20", "r30", "r40", "r50"]
        .into_iter()
        .map(Bytes::from)
        .collect();
    conn.create_table(
        TableDescriptor::named("agg")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &splits,
    )
    .unwrap();
    let table = TableName::parse("agg").unwrap();
    // Both servers hold some of the six regions (bounded wait for the assignment).
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let summary = conn.cluster_summary().unwrap();
        let holders: BTreeSet<&str> = summary
            .servers
            .iter()
            .filter(|s| s.regions.iter().any(|r| r.name.starts_with(b"agg,")))
            .map(|s| s.name.as_str())
            .collect();
        let regions: usize = summary
            .servers
            .iter()
            .map(|s| {
                s.regions
                    .iter()
                    .filter(|r| r.name.starts_with(b"agg,"))
                    .count()
            })
            .sum();
        if holders.len() == 2 && regions == 6 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "agg's regions are not on both servers: {summary:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut rows = Vec::new();
    for i in 0..60i64 {
        let value = (i * 37) % 101 - 40;
        let weight = 1 + i % 4;
        let row = format!("r{i:02}");
        conn.put(
            &table,
            &Put::new(row.clone())
                .add_column("f", "v", value.to_be_bytes().to_vec())
                .add_column("f", "w", weight.to_be_bytes().to_vec()),
        )
        .unwrap();
        rows.push((row, value, weight));
    }
    let agg = |scan: &Scan, what| {
        Arc::clone(&conn)
            .aggregate(&table, scan, Interpreter::Long, what)
            .unwrap()
    };
    let check = |scan: &Scan, chosen: &[(String, i64, i64)]| {
        let values: Vec<i64> = chosen.iter().map(|r| r.1).collect();
        let long = |v: i64| Some(Number::Long(v));
        // No value at all: no sum (HBase's AggregationClient answers null too).
        let sum = (!values.is_empty()).then(|| Number::Long(values.iter().sum()));
        assert_eq!(agg(scan, Aggregation::Sum), sum);
        assert_eq!(
            agg(scan, Aggregation::Max),
            values.iter().max().and_then(|v| long(*v))
        );
        assert_eq!(
            agg(scan, Aggregation::Min),
            values.iter().min().and_then(|v| long(*v))
        );
        assert_eq!(agg(scan, Aggregation::RowNum), long(values.len() as i64));
        let n = values.len() as f64;
        let mean = values.iter().sum::<i64>() as f64 / n;
        let avg = agg(scan, Aggregation::Avg);
        let std = agg(scan, Aggregation::Std);
        if values.is_empty() {
            assert_eq!((avg, std), (None, None));
        } else {
            assert_eq!(avg, Some(Number::Double(mean)));
            let squares = values.iter().map(|v| (v * v) as f64).sum::<f64>() / n;
            assert_eq!(std, Some(Number::Double((squares - mean * mean).sqrt())));
        }
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let median = (!sorted.is_empty()).then(|| Number::Long(sorted[(sorted.len() - 1) / 2]));
        assert_eq!(agg(scan, Aggregation::Median), median);
    };
    let column = Scan::new().add_column("f", "v");
    check(&column, &rows);
    // A range across three regions (and both servers).
    check(
        &column.clone().with_start_row("r15").with_stop_row("r45"),
        &rows[15..45],
    );
    // A filter.
    let prefixed = column
        .clone()
        .with_filter(FilterSpec::Prefix(Bytes::from_static(b"r3")));
    check(&prefixed, &rows[30..40]);
    // Nothing in range.
    check(&column.clone().with_start_row("s"), &[]);
}
