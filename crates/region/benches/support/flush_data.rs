//! The data of the flush benchmark (`storefile_io`), shared with the `flush_profile` example so
//! that a profile is of the same flush the benchmark times.

use std::sync::Arc;

use basalt_common::{ColumnFamilyDescriptor, RegionInfo, SystemClock, TableDescriptor};
use basalt_fs::{FileSystem, LocalFs};
use basalt_region::{Region, RegionConfig};
use basalt_storefile::BlockCache;
use bytes::Bytes;

pub const VALUE: &[u8] = &[b'v'; 100];
/// Bytes written per flush: keys and values.
pub const FLUSH_BYTES: usize = 64 * 1024 * 1024;
/// One-cell rows of [`row`] and [`VALUE`] (row, family, qualifier, timestamp and type, value)
/// that make [`FLUSH_BYTES`].
pub const FLUSH_CELLS: u64 = (FLUSH_BYTES / (24 + 2 + 1 + 9 + 12 + VALUE.len())) as u64;

/// Row `i`: `user` and 20 digits of a hash of `i`, so consecutive rows land apart.
pub fn row(i: u64) -> Bytes {
    let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31);
    Bytes::from(format!("user{h:020}"))
}

/// A region on the local disk of one family with `block_size`-byte blocks (HBase's default is
/// 64 KiB), a block cache of `cache_bytes`, and a flush size no benchmark reaches.
pub fn region(dir: &std::path::Path, cache_bytes: u64, block_size: u32) -> Region {
    let mut desc = TableDescriptor::named("bench")
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("cf").with_block_size(block_size));
    desc.memstore_flushsize = 4 * 1024 * 1024 * 1024;
    let config = RegionConfig {
        block_cache: Some(Arc::new(BlockCache::new(cache_bytes))),
        ..RegionConfig::default()
    };
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let info = RegionInfo::whole_table(desc.name.clone(), 1);
    Region::open(info, desc, Arc::new(SystemClock), config, fs, dir).expect("region")
}
