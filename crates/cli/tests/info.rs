//! The info server of a real `basalt standalone`: `/metrics` and `/jmx` are scraped while a
//! workload runs through the native RPC, and their counters must move by what the workload
//! did; the pages must show the same numbers.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::time::Duration;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    ColumnFamilyDescriptor, DataClient, Get, Put, Scan, ServerAdmin, TableDescriptor, TableName,
};
use support::{Server, http_get as get};

/// The value of the sample `name` (with its labels, exactly as printed) in Prometheus text.
fn sample(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(' '))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or_else(|| panic!("no sample {name} in:\n{text}"))
}

fn region_sample(text: &str, family: &str, table: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(&format!("{family}{{table=\"{table}\"")))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum()
}

#[test]
fn metrics_move_by_what_the_workload_did() {
    let server = Server::start();
    let conn = std::sync::Arc::new(
        RemoteConnection::connect(server.rpc.parse().unwrap(), RemoteConfig::default()).unwrap(),
    );
    let table = TableName::parse("m").unwrap();
    conn.create_table(
        TableDescriptor::named("m")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &[],
    )
    .unwrap();

    let (status, before) = get(&server.info, "/metrics");
    assert_eq!(status, 200);
    let puts_before = sample(&before, "basalt_regionserver_requests_total{op=\"put\"}");
    let gets_before = sample(&before, "basalt_regionserver_requests_total{op=\"get\"}");
    let scans_before = sample(
        &before,
        "basalt_regionserver_requests_total{op=\"scan_next\"}",
    );
    let appends_before = sample(&before, "basalt_wal_appends_total");
    let flushes_before = sample(&before, "basalt_flush_duration_seconds_count");

    // Scraped while the writes run: the put count only grows, and ends 50 higher.
    let writer = {
        let (conn, table) = (std::sync::Arc::clone(&conn), table.clone());
        std::thread::spawn(move || {
            for i in 0..50 {
                conn.put(
                    &table,
                    &Put::new(format!("r{i:03}")).add_column("f", "q", format!("v{i}")),
                )
                .unwrap();
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let mut seen = puts_before;
    for _ in 0..100 {
        let (_, text) = get(&server.info, "/metrics");
        let now = sample(&text, "basalt_regionserver_requests_total{op=\"put\"}");
        assert!(now >= seen, "the put count went back: {seen} -> {now}");
        seen = now;
        if writer.is_finished() {
            break;
        }
    }
    writer.join().unwrap();
    for i in 0..20 {
        assert!(
            !conn
                .get(&table, &Get::new(format!("r{i:03}")))
                .unwrap()
                .is_empty()
        );
    }
    let scanned = std::sync::Arc::clone(&conn)
        .scan(&table, &Scan::new())
        .unwrap()
        .count();
    assert_eq!(scanned, 50);
    conn.flush(&table).unwrap();

    let (_, after) = get(&server.info, "/metrics");
    assert_eq!(
        sample(&after, "basalt_regionserver_requests_total{op=\"put\"}") - puts_before,
        50.0
    );
    assert_eq!(
        sample(&after, "basalt_regionserver_requests_total{op=\"get\"}") - gets_before,
        20.0
    );
    // One scan of 50 rows: at least one batch read.
    assert!(
        sample(
            &after,
            "basalt_regionserver_requests_total{op=\"scan_next\"}"
        ) - scans_before
            >= 1.0
    );
    assert!(sample(&after, "basalt_wal_appends_total") - appends_before >= 50.0);
    assert!(sample(&after, "basalt_flush_duration_seconds_count") - flushes_before >= 1.0);
    assert_eq!(
        region_sample(&after, "basalt_region_write_requests_total", "m"),
        50.0
    );
    assert!(region_sample(&after, "basalt_region_read_requests_total", "m") >= 70.0);
    assert!(region_sample(&after, "basalt_region_store_files", "m") >= 1.0);
    assert_eq!(sample(&after, "basalt_master_region_servers"), 1.0);
    assert!(
        sample(&after, "basalt_master_regions") >= 2.0,
        "meta's and m's"
    );
    assert!(after.contains("# TYPE basalt_regionserver_op_latency_seconds histogram"));
    assert!(
        after.contains("basalt_regionserver_op_latency_seconds_bucket{op=\"put\",le=\"+Inf\"}")
    );

    // HBase's JMX bean, asked for by name.
    let (status, jmx) = get(
        &server.info,
        "/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Server",
    );
    assert_eq!(status, 200);
    let jmx: serde_json::Value = serde_json::from_str(&jmx).unwrap();
    let beans = jmx["beans"].as_array().unwrap();
    assert_eq!(beans.len(), 1, "{jmx}");
    let bean = &beans[0];
    assert!(bean["Put_num_ops"].as_u64().unwrap() >= 50);
    assert!(bean["writeRequestCount"].as_u64().unwrap() >= 50);
    assert!(bean["regionCount"].as_u64().unwrap() >= 2);
    let (_, all) = get(&server.info, "/jmx");
    assert!(all.contains("Hadoop:service=HBase,name=Master,sub=Server"));

    // The pages say the same.
    let (status, page) = get(&server.info, "/table.jsp?name=m");
    assert_eq!(status, 200);
    assert!(page.contains("<td class=\"num writes\">50</td>"), "{page}");
    let (status, page) = get(&server.info, "/master-status");
    assert_eq!(status, 200);
    assert!(
        page.contains("<a href=\"/table.jsp?name=m\">m</a>"),
        "{page}"
    );
    let (status, page) = get(&server.info, "/rs-status");
    assert_eq!(status, 200);
    let puts: u64 = page
        .split("id=\"op-put\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no put count in {page}"));
    assert!(puts >= 50, "{puts} puts shown");
    assert_eq!(get(&server.info, "/table.jsp?name=nope").0, 404);
    assert_eq!(get(&server.info, "/static/basalt.css").0, 200);
}
