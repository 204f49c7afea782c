//! Every table and family attribute either does what HBase's does or is refused, by name, when
//! a table is created or altered: none is accepted, shown by `describe`, and then ignored.

#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Error, Get, Put, TableDescriptor, TableName,
};

fn family(attributes: &[(&str, &str)]) -> ColumnFamilyDescriptor {
    let mut f = ColumnFamilyDescriptor::new("f");
    for (k, v) in attributes {
        f.set_attribute(k, v).unwrap();
    }
    f
}

fn table(table_attributes: &[(&str, &str)], f: ColumnFamilyDescriptor) -> TableDescriptor {
    let mut d = TableDescriptor::named("t").unwrap().with_family(f);
    for (k, v) in table_attributes {
        d.set_attribute(k, v).unwrap();
    }
    d
}

fn refused_naming(result: basalt_embedded::Result<()>, attribute: &str) {
    match result {
        Err(e @ Error::InvalidDescriptor { .. }) => {
            assert!(e.to_string().contains(attribute), "{attribute}: {e}");
        }
        other => panic!("{attribute} was not refused: {other:?}"),
    }
}

#[test]
fn attributes_basalt_does_not_act_on_are_refused_at_create_and_alter() {
    let family_attributes = [
        ("COMPRESSION", "LZO"),
        ("COMPRESSION", "BZIP2"),
        ("COMPRESSION", "LZMA"),
        ("COMPRESSION", "BROTLI"),
        ("COMPRESSION_COMPACT", "LZO"),
        ("COMPRESSION_COMPACT_MAJOR", "BROTLI"),
        ("INDEX_BLOCK_ENCODING", "PREFIX_TREE"),
        ("IN_MEMORY_COMPACTION", "EAGER"),
        ("IN_MEMORY_COMPACTION", "ADAPTIVE"),
        ("IS_MOB", "true"),
        ("DFS_REPLICATION", "3"),
        ("STORAGE_POLICY", "ALL_SSD"),
        ("ENCRYPTION", "AES"),
    ];
    let table_attributes = [
        ("SPLIT_POLICY", "org.example.MyOwnSplitPolicy"),
        ("FLUSH_POLICY", "FlushLargeStoresPolicy"),
        ("REGION_REPLICATION", "2"),
        ("PRIORITY", "5"),
        ("ERASURE_CODING_POLICY", "RS-6-3-1024k"),
        ("coprocessor$1", "hdfs:///c.jar|org.example.Observer|1001|"),
    ];
    let conn = Connection::in_memory();
    let admin = conn.admin();
    for (k, v) in family_attributes {
        let f = family(&[(k, v)]);
        refused_naming(admin.create_table(table(&[], f.clone())), k);
        // The same at alter, on a table that exists.
        admin.create_table(table(&[], family(&[]))).unwrap();
        refused_naming(admin.modify_column_family(&"t".parse().unwrap(), f), k);
        let name: TableName = "t".parse().unwrap();
        admin.disable_table(&name).unwrap();
        admin.delete_table(&name).unwrap();
    }
    for (k, v) in table_attributes {
        let name = k.trim_end_matches("$1");
        refused_naming(admin.create_table(table(&[(k, v)], family(&[]))), name);
    }
    // NEW_VERSION_BEHAVIOR works, but not yet together with KEEP_DELETED_CELLS.
    let both = family(&[
        ("NEW_VERSION_BEHAVIOR", "true"),
        ("KEEP_DELETED_CELLS", "TRUE"),
    ]);
    refused_naming(admin.create_table(table(&[], both)), "NEW_VERSION_BEHAVIOR");
    assert!(admin.list_table_names().is_empty(), "nothing was created");

    // What works is accepted, and shown.
    let accepted = table(
        &[
            (
                "SPLIT_POLICY",
                "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy",
            ),
            (
                "FLUSH_POLICY",
                "org.apache.hadoop.hbase.regionserver.FlushAllStoresPolicy",
            ),
        ],
        family(&[
            ("DATA_BLOCK_ENCODING", "FAST_DIFF"),
            ("COMPRESSION", "SNAPPY"),
            ("COMPRESSION_COMPACT", "ZSTD"),
            ("IN_MEMORY_COMPACTION", "NONE"),
            ("CACHE_DATA_ON_WRITE", "true"),
            ("CACHE_INDEX_ON_WRITE", "true"),
            ("CACHE_BLOOMS_ON_WRITE", "true"),
            ("PREFETCH_BLOCKS_ON_OPEN", "true"),
            ("EVICT_BLOCKS_ON_CLOSE", "true"),
            ("REPLICATION_SCOPE", "1"),
            ("NEW_VERSION_BEHAVIOR", "true"),
        ]),
    );
    admin.create_table(accepted.clone()).unwrap();
    assert_eq!(admin.describe_table(&accepted.name).unwrap(), accepted);
}

/// An engine with a block cache, and a table with one family set up as `attributes` say.
fn cached(attributes: &[(&str, &str)]) -> (Connection, basalt_embedded::Table) {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let t = support::create_with(&conn, table(&[], family(attributes)));
    (conn, t)
}

fn write_and_flush(conn: &Connection, t: &basalt_embedded::Table, rows: usize) {
    for i in 0..rows {
        t.put(&Put::new(format!("user{:02}/{i:05}", i % 10)).add_column("f", "q", vec![b'v'; 200]))
            .unwrap();
    }
    conn.admin().flush(t.name()).unwrap();
}

#[test]
fn cache_data_on_write_fills_the_cache_at_the_flush() {
    for on in [false, true] {
        let (conn, t) = cached(&[("CACHE_DATA_ON_WRITE", if on { "true" } else { "false" })]);
        write_and_flush(&conn, &t, 2_000);
        let blocks = conn.block_cache_stats().blocks;
        assert_eq!(
            blocks > 0,
            on,
            "{blocks} blocks cached with CACHE_DATA_ON_WRITE {on}"
        );
    }
}

#[test]
fn prefetch_on_open_and_evict_on_close() {
    let fs = Arc::new(basalt_fs::MemFs::new());
    let open = || {
        Connection::builder()
            .file_system(fs.clone())
            .root("/data")
            .block_cache_size(64 << 20)
            .open()
            .unwrap()
    };
    let conn = open();
    let t = support::create_with(
        &conn,
        table(
            &[],
            family(&[
                ("PREFETCH_BLOCKS_ON_OPEN", "true"),
                ("EVICT_BLOCKS_ON_CLOSE", "true"),
            ]),
        ),
    );
    write_and_flush(&conn, &t, 2_000);
    let name: TableName = "t".parse().unwrap();
    conn.close().unwrap();
    // Reopened, the region prefetches its blocks in the background: wait (boundedly) until
    // the cache stops growing, with no read of the table.
    let conn = open();
    let deadline = Instant::now() + Duration::from_secs(20);
    let (mut seen, mut still_since) = (conn.block_cache_stats().blocks, Instant::now());
    while Instant::now() < deadline
        && (seen == 0 || still_since.elapsed() < Duration::from_millis(500))
    {
        std::thread::sleep(Duration::from_millis(20));
        let now = conn.block_cache_stats().blocks;
        if now != seen {
            (seen, still_since) = (now, Instant::now());
        }
    }
    // Then a whole scan finds every block in the cache: nothing missed.
    let misses = conn.block_cache_stats().misses;
    let t = conn.table("t").unwrap();
    assert_eq!(
        t.scan(&basalt_embedded::Scan::new()).unwrap().count(),
        2_000
    );
    assert_eq!(
        conn.block_cache_stats().misses,
        misses,
        "a scan after the prefetch missed the cache ({seen} blocks were cached)"
    );
    // Closing the region (disable) evicts the table's blocks (what stays is meta's).
    let with_table = conn.block_cache_stats().blocks;
    conn.admin().disable_table(&name).unwrap();
    let after = conn.block_cache_stats().blocks;
    assert!(with_table >= after + 5, "{with_table} blocks, then {after}");
    // Without EVICT_BLOCKS_ON_CLOSE, a closed region's blocks stay.
    let mut plain = table(&[], family(&[]));
    plain.name = "u".parse().unwrap();
    let u = support::create_with(&conn, plain);
    write_and_flush(&conn, &u, 2_000);
    assert_eq!(
        u.scan(&basalt_embedded::Scan::new()).unwrap().count(),
        2_000
    );
    let read = conn.block_cache_stats().blocks;
    conn.admin().disable_table(u.name()).unwrap();
    assert!(conn.block_cache_stats().blocks >= read);
}

#[test]
fn compaction_compression_is_the_compactions() {
    let (conn, t) = cached(&[("COMPRESSION", "NONE"), ("COMPRESSION_COMPACT_MAJOR", "GZ")]);
    write_and_flush(&conn, &t, 2_000);
    let size = || conn.admin().regions(t.name()).unwrap()[0].store_file_size;
    let flushed = size();
    conn.admin().major_compact(t.name()).unwrap();
    let compacted = size();
    assert!(
        compacted * 4 < flushed,
        "GZ after the major compaction: {flushed} bytes, then {compacted}"
    );
    assert_eq!(t.get(&Get::new("user03/00003")).unwrap().cells.len(), 1);
}

#[test]
fn a_row_prefix_bloom_skips_files_without_the_prefix() {
    let conn = Connection::builder().block_cache_size(64 << 20).build();
    let mut f = family(&[("BLOOMFILTER", "ROWPREFIX_FIXED_LENGTH")]);
    f.configuration
        .insert("RowPrefixBloomFilter.prefix_length".into(), "6".into());
    let t = support::create_with(&conn, table(&[], f));
    write_and_flush(&conn, &t, 2_000);
    let reads = || {
        let s = conn.block_cache_stats();
        s.hits + s.misses
    };
    let before = reads();
    // No row starts with `user42`: the bloom keeps the file from being read.
    assert!(t.get(&Get::new("user42/00001")).unwrap().cells.is_empty());
    assert_eq!(reads(), before, "a prefix the file lacks read a block");
    // `user03` is there, though `user03/99999` is not: the file is read.
    assert!(t.get(&Get::new("user03/99999")).unwrap().cells.is_empty());
    assert!(reads() > before, "a prefix the file has was skipped");
    assert_eq!(t.get(&Get::new("user03/00003")).unwrap().cells.len(), 1);
}
