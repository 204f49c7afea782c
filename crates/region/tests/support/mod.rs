//! What the region's behaviour tests share: a host that opens each table as one region
//! covering every row, on an in-memory file system, with a clock that moves only when told;
//! and compact renderings of results. A `Region` answers the same calls a client's `Table`
//! does (put, delete, get, scan, increment, append, mutate_row, check_and_mutate), so these
//! tests exercise the engine's semantics with nothing above it.
#![allow(dead_code, reason = "each test file uses part of it")]

use std::path::PathBuf;
use std::sync::Arc;

use basalt_common::{
    ColumnFamilyDescriptor, ManualClock, RegionInfo, RowResult, Scan, TableDescriptor,
};
use basalt_fs::MemFs;
use basalt_region::{Region, RegionConfig};
use basalt_storefile::BlockCache;

/// Where the test's regions live, and the clock (and block cache, if any) they share.
pub struct Host {
    clock: Arc<ManualClock>,
    fs: Arc<MemFs>,
    block_cache: Option<Arc<BlockCache>>,
}

/// A host whose clock starts at `start` ms.
pub fn host_at(start: i64) -> (Host, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start));
    let host = Host {
        clock: Arc::clone(&clock),
        fs: Arc::new(MemFs::new()),
        block_cache: None,
    };
    (host, clock)
}

/// A host (clock at 1000 ms) whose regions read through `cache`.
pub fn host_with_cache(cache: Arc<BlockCache>) -> Host {
    Host {
        block_cache: Some(cache),
        ..host_at(1_000).0
    }
}

/// Table `name` with the given families (default attributes), as one region.
pub fn create_table(host: &Host, name: &str, families: &[&str]) -> Region {
    let mut desc = TableDescriptor::named(name).expect("valid name");
    for f in families {
        desc.add_family(ColumnFamilyDescriptor::new(f.as_bytes().to_vec()));
    }
    create_with(host, desc)
}

/// The table `desc` describes, as one region.
pub fn create_with(host: &Host, desc: TableDescriptor) -> Region {
    let info = RegionInfo::whole_table(desc.name.clone(), 1);
    let dir = PathBuf::from("/regions").join(info.encoded_name());
    Region::open(
        info,
        desc,
        host.clock.clone(),
        RegionConfig {
            block_cache: host.block_cache.clone(),
            ..RegionConfig::default()
        },
        host.fs.clone(),
        &dir,
    )
    .expect("open region")
}

/// `family:qualifier@ts=value` for each cell, for compact assertions.
pub fn cells(r: &RowResult) -> Vec<String> {
    r.cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

/// The row keys of a whole scan, as strings.
pub fn scan_rows(region: &Region, scan: &Scan) -> Vec<String> {
    region
        .scan(scan)
        .expect("scan")
        .map(|r| String::from_utf8_lossy(&r.expect("row").row).into_owned())
        .collect()
}
