//! Scan options (reference §2.3): bounds and their inclusive flags, reversal, column
//! selection, limits, batches, per-family time ranges, partial results.

mod support;

use basalt_common::{Get, Put, Scan};
use basalt_region::Region;
use support::{create_table, host_at, scan_rows};

fn rows_table() -> Region {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["a", "b"]);
    for r in ["r1", "r2", "r3", "r4", "r5"] {
        t.put(
            &Put::new(r)
                .add_column("a", "x", format!("{r}ax"))
                .add_column("a", "y", format!("{r}ay"))
                .add_column("b", "z", format!("{r}bz")),
        )
        .expect("put");
    }
    t
}

#[test]
fn bounds_with_inclusive_flags() {
    let t = rows_table();
    assert_eq!(
        scan_rows(&t, &Scan::new().with_start_row("r2").with_stop_row("r4")),
        ["r2", "r3"]
    );
    let s = Scan::new()
        .with_start_row_inclusive("r2", false)
        .with_stop_row_inclusive("r4", true);
    assert_eq!(scan_rows(&t, &s), ["r3", "r4"]);
    assert_eq!(
        scan_rows(&t, &Scan::new().with_start_row("r4")),
        ["r4", "r5"]
    );
    assert_eq!(scan_rows(&t, &Scan::new().with_stop_row("r2")), ["r1"]);
    assert!(scan_rows(&t, &Scan::new().with_start_row("r3").with_stop_row("r3")).is_empty());
}

#[test]
fn reversed_scans_go_from_start_down_to_stop() {
    let t = rows_table();
    assert_eq!(
        scan_rows(&t, &Scan::new().reversed(true)),
        ["r5", "r4", "r3", "r2", "r1"]
    );
    let s = Scan::new()
        .with_start_row("r4")
        .with_stop_row("r1")
        .reversed(true);
    assert_eq!(scan_rows(&t, &s), ["r4", "r3", "r2"]);
    let s = Scan::new()
        .with_start_row_inclusive("r4", false)
        .with_stop_row_inclusive("r1", true)
        .reversed(true);
    assert_eq!(scan_rows(&t, &s), ["r3", "r2", "r1"]);
    // A start row that does not exist starts at the next lower row.
    let s = Scan::new()
        .with_start_row("r35")
        .reversed(true)
        .with_limit(2);
    assert_eq!(scan_rows(&t, &s), ["r3", "r2"]);
}

#[test]
fn families_and_columns() {
    let t = rows_table();
    let r = t
        .scan(&Scan::new().add_family("b"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(r.cells.len(), 1);
    assert_eq!(r.value(b"b", b"z").unwrap(), b"r1bz");
    let r = t
        .scan(&Scan::new().add_column("a", "y"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(r.cells.len(), 1);
    assert_eq!(r.value(b"a", b"y").unwrap(), b"r1ay");
    assert!(t.scan(&Scan::new().add_family("nope")).is_err());
}

#[test]
fn limit_counts_rows() {
    let t = rows_table();
    assert_eq!(scan_rows(&t, &Scan::new().with_limit(2)), ["r1", "r2"]);
    assert!(scan_rows(&t, &Scan::new().with_limit(0)).is_empty());
    assert_eq!(
        scan_rows(&t, &Scan::new().with_limit(2).with_batch(2)),
        ["r1", "r1", "r2", "r2"]
    );
}

#[test]
fn batch_splits_wide_rows() {
    let t = rows_table();
    let results: Vec<_> = t
        .scan(&Scan::new().with_batch(2).with_limit(1))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    let shape: Vec<_> = results.iter().map(|r| (r.cells.len(), r.partial)).collect();
    assert_eq!(shape, [(2, true), (1, false)]);
}

#[test]
fn small_caching_still_returns_everything() {
    let t = rows_table();
    let all = scan_rows(&t, &Scan::new().with_caching(1));
    assert_eq!(all, ["r1", "r2", "r3", "r4", "r5"]);
    let rev = scan_rows(&t, &Scan::new().with_caching(2).reversed(true));
    assert_eq!(rev, ["r5", "r4", "r3", "r2", "r1"]);
}

#[test]
fn scanner_sees_a_consistent_point() {
    let t = rows_table();
    let mut scanner = t.scan(&Scan::new().with_caching(1)).unwrap();
    assert_eq!(scanner.next().unwrap().unwrap().row, "r1");
    t.put(&Put::new("r6").add_column("a", "x", "late")).unwrap();
    t.put(&Put::new("r2").add_column("a", "x", "changed"))
        .unwrap();
    let rest: Vec<_> = scanner.map(|r| r.unwrap()).collect();
    assert_eq!(
        rest.len(),
        4,
        "rows written after the scanner opened are not seen"
    );
    assert_eq!(rest[0].value(b"a", b"x").unwrap(), b"r2ax");
}

#[test]
fn family_time_ranges_replace_the_reads_range_for_their_family() {
    let (host, _) = host_at(1_000);
    let t = create_table(&host, "t", &["a", "b"]);
    for ts in [10, 20, 30] {
        t.put(
            &Put::new("r")
                .add_column_at("a", "q", ts, format!("a{ts}"))
                .add_column_at("b", "q", ts, format!("b{ts}")),
        )
        .unwrap();
    }
    let get = Get::new("r")
        .with_time_range(0, 25)
        .with_family_time_range("b", 0, 15);
    let r = t.get(&get).unwrap();
    assert_eq!(r.value(b"a", b"q"), Some(&b"a20"[..]));
    assert_eq!(r.value(b"b", b"q"), Some(&b"b10"[..]));
    let rows: Vec<_> = t
        .scan(&Scan::new().with_family_time_range("a", 25, 40))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(rows[0].value(b"a", b"q"), Some(&b"a30"[..]));
    assert_eq!(rows[0].value(b"b", b"q"), Some(&b"b30"[..]));
    assert!(matches!(
        t.get(&Get::new("r").with_family_time_range("nope", 0, 1)),
        Err(basalt_common::Error::NoSuchColumnFamily { .. })
    ));
}

#[test]
fn partial_results_cut_rows_at_the_max_result_size() {
    let (host, _) = host_at(1_000);
    let t = create_table(&host, "t", &["f"]);
    let mut put = Put::new("wide");
    for i in 0..10 {
        put = put.add_column("f", format!("q{i}"), vec![b'x'; 100]);
    }
    t.put(&put).unwrap();
    t.put(&Put::new("zsmall").add_column("f", "q", "v"))
        .unwrap();
    let parts: Vec<(usize, bool)> = t
        .scan(
            &Scan::new()
                .with_max_result_size(300)
                .with_allow_partial_results(true),
        )
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            (r.cells.len(), r.partial)
        })
        .collect();
    // 10 cells of about 115 bytes: results of 3 cells, the last of the row not partial.
    assert_eq!(
        parts,
        [(3, true), (3, true), (3, true), (1, false), (1, false)]
    );
    // Without allow_partial_results, rows stay whole; limits count whole rows.
    let whole: Vec<usize> = t
        .scan(&Scan::new().with_max_result_size(300).with_limit(1))
        .unwrap()
        .map(|r| r.unwrap().cells.len())
        .collect();
    assert_eq!(whole, [10]);
    let limited: Vec<bool> = t
        .scan(
            &Scan::new()
                .with_max_result_size(300)
                .with_allow_partial_results(true)
                .with_limit(1),
        )
        .unwrap()
        .map(|r| r.unwrap().partial)
        .collect();
    assert_eq!(limited, [true, true, true, false]);
    assert!(t.scan(&Scan::new().with_max_result_size(0)).is_err());
}
