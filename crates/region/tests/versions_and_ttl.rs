//! Versions, time ranges, TTL and MIN_VERSIONS (reference §1.4, §1.7).

mod support;

use basalt_common::{ColumnFamilyDescriptor, Get, Put, TableDescriptor};
use support::{cells, create_table, create_with, host_at};

#[test]
fn reads_never_exceed_family_versions() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]); // VERSIONS 3
    for ts in 1..=5 {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(cells(&all), ["cf:q@5=v5", "cf:q@4=v4", "cf:q@3=v3"]);
    assert_eq!(
        t.get(&Get::new("r")).unwrap().len(),
        1,
        "one version unless asked"
    );
    assert_eq!(t.get(&Get::new("r").read_versions(2)).unwrap().len(), 2);
}

#[test]
fn versions_are_ordered_by_timestamp_not_write_order() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    for ts in [5, 1, 9, 3] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["cf:q@9=v9"]);
}

#[test]
fn same_timestamp_rewrite_wins() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    t.put(&Put::new("r").add_column_at("cf", "q", 7, "first"))
        .unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 7, "second"))
        .unwrap();
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(cells(&all), ["cf:q@7=second"]);
}

#[test]
fn time_range_and_exact_timestamp() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    for ts in [10, 20, 30] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let r = t
        .get(&Get::new("r").with_time_range(10, 30).read_all_versions())
        .unwrap();
    assert_eq!(cells(&r), ["cf:q@20=v20", "cf:q@10=v10"], "[min, max)");
    let r = t.get(&Get::new("r").with_timestamp(20)).unwrap();
    assert_eq!(cells(&r), ["cf:q@20=v20"]);
    assert!(t.get(&Get::new("r").with_timestamp(25)).unwrap().is_empty());
    assert!(t.get(&Get::new("r").with_time_range(30, 10)).is_err());
}

#[test]
fn server_assigns_one_timestamp_per_put() {
    let (host, _) = host_at(4_242);
    let t = create_table(&host, "t", &["cf"]);
    t.put(
        &Put::new("r")
            .add_column("cf", "a", "1")
            .add_column("cf", "b", "2"),
    )
    .unwrap();
    let r = t.get(&Get::new("r")).unwrap();
    assert!(r.cells.iter().all(|c| c.timestamp == 4_242));
    assert_eq!(
        r.cells[0].seq_id, r.cells[1].seq_id,
        "one mutation, one sequence id"
    );
}

#[test]
fn family_ttl_expires_cells() {
    let (host, clock) = host_at(1_000_000);
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf").with_ttl_seconds(10));
    let t = create_with(&host, desc);
    t.put(&Put::new("r").add_column("cf", "q", "v")).unwrap();
    clock.advance(10_000);
    assert_eq!(
        t.get(&Get::new("r")).unwrap().len(),
        1,
        "exactly TTL old is still alive"
    );
    clock.advance(1);
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
}

#[test]
fn min_versions_keeps_newest_past_ttl() {
    let (host, clock) = host_at(1_000_000);
    let desc = TableDescriptor::named("t").unwrap().with_family(
        ColumnFamilyDescriptor::new("cf")
            .with_ttl_seconds(1)
            .with_min_versions(2),
    );
    let t = create_with(&host, desc);
    for i in 0..4 {
        t.put(&Put::new("r").add_column("cf", "q", format!("v{i}")))
            .unwrap();
        clock.advance(1);
    }
    clock.advance(60_000);
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(cells(&all), ["cf:q@1000003=v3", "cf:q@1000002=v2"]);
}

#[test]
fn cell_ttl_in_milliseconds() {
    let (host, clock) = host_at(1_000);
    let t = create_table(&host, "t", &["cf"]);
    t.put(&Put::new("r").add_column("cf", "short", "x").with_ttl_ms(50))
        .unwrap();
    t.put(&Put::new("r").add_column("cf", "long", "y")).unwrap();
    clock.advance(50);
    assert_eq!(t.get(&Get::new("r")).unwrap().len(), 2);
    clock.advance(1);
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["cf:long@1000=y"]);
}

#[test]
fn empty_qualifier_is_a_real_column() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    t.put(
        &Put::new("r")
            .add_column("cf", "", "bare")
            .add_column("cf", "q", "named"),
    )
    .unwrap();
    assert_eq!(
        cells(&t.get(&Get::new("r").add_column("cf", "")).unwrap()),
        ["cf:@100=bare"]
    );
    assert_eq!(t.get(&Get::new("r")).unwrap().len(), 2);
}
