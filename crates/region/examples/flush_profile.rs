//! Profiles a region's flush alone: fills a memstore with the `flush_64mib` benchmark's data
//! (about 64 MiB of one-cell rows), flushes it, and repeats, printing each flush's time. With
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
use std::time::{Duration, Instant};

use basalt_common::Put;
use bytes::Bytes;

#[path = "../benches/support/flush_data.rs"]
mod flush_data;

use flush_data::{FLUSH_BYTES, FLUSH_CELLS, VALUE, region, row};

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
    let region = region(dir.path(), 64 << 20, 64 * 1024);
    let value = Bytes::from_static(VALUE);
    let mut next = 0u64;
    for _ in 0..rounds {
        for _ in 0..FLUSH_CELLS {
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
        println!("flush of {FLUSH_CELLS} cells: {took:.1?}, {rate:.0} MB/s");
    }
    Ok(())
}
