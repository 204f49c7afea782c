//! Store file blocks are read through the process's block cache.

mod support;

use basalt_embedded::{ColumnFamilyDescriptor, Connection, Get, Put, Scan, TableDescriptor};

fn table_with(conn: &Connection, block_cache: bool) -> basalt_embedded::Table {
    let cf = ColumnFamilyDescriptor::new("cf")
        .with_block_cache(block_cache)
        .with_block_size(1024);
    let t = support::create_with(
        conn,
        TableDescriptor::named("t")
            .expect("test setup")
            .with_family(cf),
    );
    for i in 0..500 {
        t.put(&Put::new(format!("row{i:04}")).add_column("cf", "q", vec![b'v'; 100]))
            .expect("test setup");
    }
    conn.admin().flush(t.name()).expect("test setup");
    t
}

#[test]
fn repeated_reads_hit_the_cache() {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let t = table_with(&conn, true);
    let start = conn.block_cache_stats();
    t.get(&Get::new("row0100")).unwrap();
    let after_first = conn.block_cache_stats();
    assert_eq!(after_first.misses, start.misses + 1);
    assert_eq!(after_first.blocks, start.blocks + 1);
    for _ in 0..10 {
        assert_eq!(t.get(&Get::new("row0100")).unwrap().len(), 1);
    }
    let after = conn.block_cache_stats();
    assert_eq!(after.hits, after_first.hits + 10);
    assert_eq!(after.misses, after_first.misses);
}

#[test]
fn families_without_blockcache_do_not_fill_it() {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let t = table_with(&conn, false);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 500);
    let stats = conn.block_cache_stats();
    assert_eq!(stats.blocks, 0);
    assert!(stats.misses > 0);
}

#[test]
fn the_cache_is_bounded_in_bytes() {
    let conn = Connection::builder().block_cache_size(16 * 1024).build();
    let t = table_with(&conn, true);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 500);
    let stats = conn.block_cache_stats();
    assert!(stats.bytes <= 16 * 1024, "{stats:?}");
    assert!(stats.evictions > 0, "{stats:?}");
    assert_eq!(stats.capacity, 16 * 1024);
}

#[test]
fn reads_skip_files_that_cannot_hold_what_they_want() {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    desc.set_attribute("COMPACTION_ENABLED", "false").unwrap();
    let t = support::create_with(&conn, desc);
    // Three files: rows a*, b*, c* (ROW bloom filters, disjoint key ranges), timestamps 10, 20, 30.
    for (prefix, ts) in [("a", 10), ("b", 20), ("c", 30)] {
        for i in 0..50 {
            t.put(&Put::new(format!("{prefix}{i:02}")).add_column_at("cf", "q", ts, "v"))
                .unwrap();
        }
        conn.admin().flush(t.name()).unwrap();
    }
    let misses = || conn.block_cache_stats().misses;
    let before = misses();
    assert_eq!(t.get(&Get::new("b07")).unwrap().len(), 1);
    assert_eq!(
        misses() - before,
        1,
        "one block read: the other two files are skipped"
    );
    let before = misses();
    assert!(t.get(&Get::new("b07x")).unwrap().is_empty());
    assert!(
        misses() - before <= 1,
        "a row no file holds reads at most a bloom false positive"
    );
    let before = misses();
    let rows = t
        .scan(&Scan::new().with_time_range(25, 100))
        .unwrap()
        .count();
    assert_eq!(rows, 50);
    // Each file is one block; files a and b end before the time range starts.
    assert_eq!(conn.admin().store_file_counts(t.name()).unwrap(), [3]);
    assert_eq!(
        misses() - before,
        1,
        "only the file with cells in the time range is read"
    );
}

#[test]
fn reads_that_do_not_cache_blocks_leave_the_cache_alone() {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let t = table_with(&conn, true);
    let before = conn.block_cache_stats();
    assert_eq!(
        t.scan(&Scan::new().with_cache_blocks(false))
            .unwrap()
            .count(),
        500
    );
    assert_eq!(
        t.get(&Get::new("row0100").with_cache_blocks(false))
            .unwrap()
            .len(),
        1
    );
    let after = conn.block_cache_stats();
    assert_eq!(after.blocks, before.blocks);
    assert!(after.misses > before.misses);
    // Cached reads fill it as before.
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 500);
    assert!(conn.block_cache_stats().blocks > before.blocks);
}

/// A data directory does not open when the block cache and the memstores together would take
/// more than 80% of the memory the process may use; the error names both sizes.
#[test]
fn a_cache_and_memstores_past_the_memory_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let limit = basalt_storefile::memory_limit();
    let err = Connection::builder()
        .root(dir.path())
        .block_cache_size(limit / 2)
        .global_memstore_size(limit / 2)
        .open()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the block cache") && err.contains("80%"),
        "{err}"
    );
    let conn = Connection::builder()
        .root(dir.path())
        .block_cache_size(64 << 20)
        .open()
        .unwrap();
    drop(conn);
}
