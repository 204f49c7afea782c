//! Profiles a region's flush alone: fills a memstore with about 64 MiB of one-cell rows (the
//! `flush_64mib` benchmark's data), flushes it, and repeats, printing each flush's time. With
//! `PERF_CTL` naming a perf control FIFO, it enables perf only around each flush:
//!
//! ```text
//! mkfifo /tmp/perf-ctl
//! PERF_CTL=/tmp/perf-ctl perf record -D -1 --control fifo:/tmp/perf-ctl -F 4000 -g -- \
//!     target/release/examples/flush_profile
//! ```
//!
//! `ROUNDS` sets the number of flushes (default 5). Data goes to a temporary directory.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_common::{ColumnFamilyDescriptor, Put, RegionInfo, SystemClock, TableDescriptor};
use basalt_fs::{FileSystem, LocalFs};
use basalt_region::{Region, RegionConfig};
use basalt_storefile::BlockCache;
use bytes::Bytes;

/// Bytes of keys and values per flush.
const FLUSH_BYTES: usize = 64 * 1024 * 1024;

fn row(i: u64) -> Bytes {
    let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31);
    Bytes::from(format!("user{h:020}"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut perf = match std::env::var_os("PERF_CTL") {
        Some(path) => Some(std::fs::OpenOptions::new().write(true).open(path)?),
        None => None,
    };
    let rounds: usize = match std::env::var("ROUNDS") {
        Ok(n) => n.parse()?,
        Err(_) => 5,
    };
    let dir = tempfile::tempdir()?;
    let mut desc = TableDescriptor::named("profile")?
        .with_family(ColumnFamilyDescriptor::new("cf").with_block_size(64 * 1024));
    desc.memstore_flushsize = 4 * 1024 * 1024 * 1024;
    let config = RegionConfig {
        block_cache: Some(Arc::new(BlockCache::new(64 << 20))),
        ..RegionConfig::default()
    };
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    let info = RegionInfo::whole_table(desc.name.clone(), 1);
    let region = Region::open(info, desc, Arc::new(SystemClock), config, fs, dir.path())?;
    let value = Bytes::from_static(&[b'v'; 100]);
    let cells = FLUSH_BYTES / (24 + 2 + 1 + 9 + 12 + value.len());
    let mut next = 0u64;
    for _ in 0..rounds {
        for _ in 0..cells {
            region.put(&Put::new(row(next)).add_column("cf", "q", value.clone()))?;
            next += 1;
        }
        // Lets the background flattening of frozen segments finish first.
        std::thread::sleep(Duration::from_millis(300));
        if let Some(ctl) = &mut perf {
            ctl.write_all(b"enable\n")?;
        }
        let start = Instant::now();
        region.flush()?;
        let took = start.elapsed();
        if let Some(ctl) = &mut perf {
            ctl.write_all(b"disable\n")?;
        }
        let rate = FLUSH_BYTES as f64 / took.as_secs_f64() / 1e6;
        println!("flush of {cells} cells: {took:.1?}, {rate:.0} MB/s");
    }
    Ok(())
}
