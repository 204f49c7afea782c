//! WAL benchmarks (issue 5): the disk's fdatasync rate for small appends, then puts through the
//! embedded engine at FSYNC_WAL with 1, 4, 16 and 64 writers (group commit), and single-writer
//! SYNC_WAL beside SKIP_WAL puts. Run with `cargo bench -p basalt-client --bench wal`; each
//! figure runs for about two seconds in a directory under `target/`, on the machine's disk.
//! BENCHMARKS.md records results.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use basalt_client::{ColumnFamilyDescriptor, Connection, Durability, Put, TableDescriptor};

const RUN: Duration = Duration::from_secs(2);

fn main() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/wal-bench");
    std::fs::create_dir_all(&base).expect("bench directory");
    let dir = tempfile::tempdir_in(&base).expect("temp dir");

    // `-- N`: only FSYNC_WAL puts from N writers (for profiling).
    if let Some(writers) = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
    {
        let puts = puts_per_second(&dir.path().join("only"), writers, Durability::FsyncWal);
        println!("FSYNC_WAL, {writers} writers: {puts:.0} puts/s");
        return;
    }
    let rate = fdatasync_rate(dir.path());
    println!("fdatasync of 100-byte appends: {rate:.0}/s");
    println!();
    println!("| writers | FSYNC_WAL puts/s | target: writers x 0.8 x fdatasync rate |");
    println!("|---|---|---|");
    for (i, writers) in [1, 4, 16, 64].into_iter().enumerate() {
        let root = dir.path().join(format!("fsync{i}"));
        let puts = puts_per_second(&root, writers, Durability::FsyncWal);
        let target = writers as f64 * 0.8 * rate;
        println!("| {writers} | {puts:.0} | {target:.0} |");
    }
    println!();
    let sync = puts_per_second(&dir.path().join("sync"), 1, Durability::SyncWal);
    let skip = puts_per_second(&dir.path().join("skip"), 1, Durability::SkipWal);
    println!(
        "single writer: SYNC_WAL {sync:.0} puts/s, SKIP_WAL {skip:.0} puts/s, SKIP/SYNC {:.2}",
        skip / sync
    );
}

/// Appends of 100 bytes, each followed by fdatasync, for [`RUN`].
fn fdatasync_rate(dir: &Path) -> f64 {
    let mut file = std::fs::File::create(dir.join("fdatasync")).expect("create");
    let record = [7u8; 100];
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < RUN {
        file.write_all(&record).expect("write");
        file.sync_data().expect("fdatasync");
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// Puts of one 100-byte cell to scattered rows from `writers` threads for [`RUN`].
fn puts_per_second(root: &Path, writers: usize, durability: Durability) -> f64 {
    let conn = Connection::open(root).expect("open");
    let desc = TableDescriptor::named("bench")
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_durability(durability);
    conn.admin().create_table(desc).expect("create table");
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let threads: Vec<_> = (0..writers as u64)
        .map(|w| {
            let table = conn.table("bench").expect("table");
            let (stop, total) = (Arc::clone(&stop), Arc::clone(&total));
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let row = (w << 40) ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    let put =
                        Put::new(format!("user{row:020}")).add_column("cf", "f", vec![b'v'; 100]);
                    table.put(&put).expect("put");
                    n += 1;
                }
                total.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    std::thread::sleep(RUN);
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("writer");
    }
    let elapsed = start.elapsed().as_secs_f64();
    conn.close().expect("close");
    total.load(Ordering::Relaxed) as f64 / elapsed
}
