//! Delete semantics (reference §1.5): markers mask puts at or below their timestamp, even puts
//! written later; single-version deletes; whole-row deletes.

mod support;

use basalt_common::{ColumnFamilyDescriptor, Delete, Get, Put, Scan, TableDescriptor};
use support::{cells, create_table, create_with, host_at};

#[test]
fn marker_masks_puts_written_after_it() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 5, "old"))
        .unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 10, "same"))
        .unwrap();
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "puts at ts <= 10 stay masked"
    );
    t.put(&Put::new("r").add_column_at("cf", "q", 11, "new"))
        .unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["cf:q@11=new"]);
}

#[test]
fn delete_without_timestamp_removes_newest_version_and_an_older_one_reappears() {
    let (host, _) = host_at(100);
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf").with_max_versions(2));
    let t = create_with(&host, desc);
    for ts in [1, 2, 3] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    let two = Get::new("r").read_versions(2);
    assert_eq!(cells(&t.get(&two).unwrap()), ["cf:q@3=v3", "cf:q@2=v2"]);
    t.delete(&Delete::new("r").add_column("cf", "q")).unwrap();
    // HBase's documented surprise: deleted versions do not count, so t1 comes back.
    assert_eq!(cells(&t.get(&two).unwrap()), ["cf:q@2=v2", "cf:q@1=v1"]);
}

#[test]
fn delete_of_newest_version_with_nothing_there_uses_now() {
    let (host, clock) = host_at(1_000);
    let t = create_table(&host, "t", &["cf"]);
    t.delete(&Delete::new("r").add_column("cf", "q")).unwrap();
    // The marker sits at "now" (1000) and masks only that exact version.
    t.put(&Put::new("r").add_column_at("cf", "q", 999, "before"))
        .unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 1_000, "at"))
        .unwrap();
    clock.advance(1);
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(cells(&all), ["cf:q@999=before"]);
    let raw: Vec<_> = t
        .scan(&Scan::new().raw(true).read_all_versions())
        .unwrap()
        .collect();
    let raw = raw.into_iter().next().unwrap().unwrap();
    assert_eq!(raw.cells[0].cell_type, basalt_common::CellType::Delete);
    assert_eq!(raw.cells[0].timestamp, 1_000);
}

#[test]
fn exact_version_delete_leaves_other_versions() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    for ts in [1, 2, 3] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
    }
    t.delete(&Delete::new("r").add_column_at("cf", "q", 2))
        .unwrap();
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(cells(&all), ["cf:q@3=v3", "cf:q@1=v1"]);
}

#[test]
fn delete_family_and_family_version() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["a", "b"]);
    let row = Put::new("r")
        .add_column_at("a", "x", 5, "ax5")
        .add_column_at("a", "y", 7, "ay7")
        .add_column_at("a", "y", 5, "ay5")
        .add_column_at("b", "x", 5, "bx5");
    t.put(&row).unwrap();
    t.delete(&Delete::new("r").add_family_version("a", 5))
        .unwrap();
    let all = Get::new("r").read_all_versions();
    assert_eq!(cells(&t.get(&all).unwrap()), ["a:y@7=ay7", "b:x@5=bx5"]);
    t.delete(&Delete::new("r").add_family_at("a", 7)).unwrap();
    assert_eq!(cells(&t.get(&all).unwrap()), ["b:x@5=bx5"]);
}

#[test]
fn whole_row_delete_spares_future_timestamps() {
    let (host, _) = host_at(1_000);
    let t = create_table(&host, "t", &["a", "b"]);
    t.put(
        &Put::new("r")
            .add_column("a", "q", "now")
            .add_column_at("b", "q", 5_000, "future"),
    )
    .unwrap();
    t.delete(&Delete::new("r")).unwrap();
    // deleteall marks every family at "now"; the put from the future survives.
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["b:q@5000=future"]);
    // A whole-row delete at an explicit timestamp.
    t.delete(&Delete::new("r").with_timestamp(5_000)).unwrap();
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
}

#[test]
fn raw_scan_shows_markers_and_masked_cells() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    t.put(&Put::new("r").add_column_at("cf", "q", 1, "v1"))
        .unwrap();
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 2))
        .unwrap();
    assert!(t.scan(&Scan::new()).unwrap().next().is_none());
    let raw = t
        .scan(&Scan::new().raw(true))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    let kinds: Vec<_> = raw
        .cells
        .iter()
        .map(|c| (c.timestamp, c.cell_type.name()))
        .collect();
    assert_eq!(kinds, [(2, "DeleteColumn"), (1, "Put")]);
}
