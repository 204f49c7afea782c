//! In-memory flushes: frozen memstores flattened in the background, and a family that opts out.

use std::time::{Duration, Instant};

use basalt_common::{ColumnFamilyDescriptor, ManualClock};
use basalt_fs::MemFs;

use super::*;
use crate::flat::Segment;

fn row(i: u32) -> Bytes {
    Bytes::from(format!("row{:08x}", i.wrapping_mul(0x9E37_79B9)))
}

/// A region in memory whose memstores freeze every 16 KiB.
fn tiny_in_memory_flushes(desc: TableDescriptor) -> Region {
    let config = RegionConfig {
        in_memory_flush_size: 16 * 1024,
        ..RegionConfig::default()
    };
    Region::open(
        RegionInfo::whole_table(desc.name.clone(), 1),
        desc,
        Arc::new(ManualClock::new(1_000)),
        config,
        Arc::new(MemFs::new()),
        Path::new("/r"),
    )
    .unwrap()
}

/// Writes with a tiny in-memory flush size freeze, flatten and merge the memstore in the
/// background; every get and the scan read what was written, before and after a flush.
#[test]
fn frozen_flattened_and_merged_segments_read_back() {
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    let region = tiny_in_memory_flushes(desc);
    const ROWS: u32 = 3_000;
    for i in 0..ROWS {
        let put = Put::new(row(i)).add_column("cf", "q", Bytes::from(i.to_string()));
        region.put(&put).unwrap();
    }
    // The last flatten runs on its own thread: wait (boundedly) until no list is left.
    let deadline = Instant::now() + Duration::from_secs(20);
    let view = loop {
        let view = region.stores[0].view();
        let lists = view
            .frozen
            .iter()
            .filter(|s| matches!(s, Segment::List(_)))
            .count();
        if lists == 0 || Instant::now() > deadline {
            break view;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // About a hundred freezes of 16 KiB: flat segments only, merged down to a few.
    assert!(!view.frozen.is_empty(), "nothing was frozen");
    assert!(view.frozen.iter().all(|s| matches!(s, Segment::Flat(_))));
    assert!(view.frozen.len() <= 7, "{} segments", view.frozen.len());
    let check = |when: &str| {
        for i in (0..ROWS).step_by(7) {
            let got = region.get(&Get::new(row(i))).unwrap();
            assert_eq!(got.cells.len(), 1, "{when}: row {i}");
            assert_eq!(got.cells[0].value(), i.to_string().as_bytes(), "{when}");
        }
        let rows: Vec<Bytes> = region
            .scan(&Scan::new())
            .unwrap()
            .map(|r| r.unwrap().row)
            .collect();
        let mut want: Vec<Bytes> = (0..ROWS).map(row).collect();
        want.sort();
        assert_eq!(rows, want, "{when}");
    };
    check("in memory");
    region.flush().unwrap();
    assert!(region.stores[0].view().frozen.is_empty());
    check("flushed");
}

/// IN_MEMORY_COMPACTION NONE: the family's memstore stays one list until the flush.
#[test]
fn a_family_without_in_memory_compaction_is_not_frozen() {
    let mut none = ColumnFamilyDescriptor::new("none");
    none.set_attribute("IN_MEMORY_COMPACTION", "NONE").unwrap();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(none)
        .with_family(ColumnFamilyDescriptor::new("basic"));
    let region = tiny_in_memory_flushes(desc);
    for i in 0..2_000 {
        let v = Bytes::from(i.to_string());
        let put = Put::new(row(i))
            .add_column("none", "q", v.clone())
            .add_column("basic", "q", v);
        region.put(&put).unwrap();
    }
    let stores = &region.stores;
    let (basic, none) = (&stores[0], &stores[1]);
    assert_eq!(none.family().name, "none");
    assert!(none.view().frozen.is_empty(), "NONE was frozen");
    assert!(
        !basic.view().frozen.is_empty(),
        "BASIC (the default) was not"
    );
    assert_eq!(region.get(&Get::new(row(7))).unwrap().cells.len(), 2);
}
