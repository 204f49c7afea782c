//! Region benchmarks (issue 6): how long a split takes for a region of 100 MiB and of 1 GiB
//! (references, not copies: it should not grow with the data), and random puts over a table
//! pre-split into 8 regions from 1 and 2 threads. Run with
//! `cargo bench -p basalt-client --bench regions`; data lives in a directory under `target/`,
//! on the machine's disk. BENCHMARKS.md records results.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Durability, Put, SplitAlgorithm, TableDescriptor, TableName,
};

const RUN: Duration = Duration::from_secs(3);

fn main() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/regions-bench");
    std::fs::create_dir_all(&base).expect("bench directory");
    let dir = tempfile::tempdir_in(&base).expect("temp dir");
    // `-- split` or `-- puts` runs one half.
    let only: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);

    if run("split") {
        split_times(dir.path());
    }
    if run("puts") {
        put_rates(dir.path());
    }
}

fn split_times(dir: &Path) {
    println!("| region size | store files | rows | time to fill | split time | daughters |");
    println!("|---|---|---|---|---|---|");
    for (i, (mib, compact)) in [(100u64, false), (1024, false), (1024, true)]
        .into_iter()
        .enumerate()
    {
        split_time(&dir.join(format!("split{i}")), mib, compact);
    }
    println!();
}

fn put_rates(dir: &Path) {
    println!("| durability | 1 thread puts/s | 2 threads puts/s | 2 / 1 |");
    println!("|---|---|---|---|");
    for (i, durability) in [Durability::SkipWal, Durability::SyncWal]
        .into_iter()
        .enumerate()
    {
        let one = random_puts(&dir.join(format!("p{i}a")), 1, durability);
        let two = random_puts(&dir.join(format!("p{i}b")), 2, durability);
        println!(
            "| {durability:?} | {one:.0} | {two:.0} | {:.2} |",
            two / one
        );
    }
}

fn table(name: &str) -> TableDescriptor {
    let mut d = TableDescriptor::named(name)
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_durability(Durability::SkipWal);
    d.split_enabled = false;
    d.compaction_enabled = false;
    d
}

/// Fills one region with `mib` MiB of 1 KiB values, flushes it (and, with `compact`,
/// major-compacts it to one file), and times its split.
fn split_time(root: &Path, mib: u64, compact: bool) {
    let conn = Connection::builder()
        .file_system(std::sync::Arc::new(basalt_fs::LocalFs))
        .root(root)
        .auto_split(false)
        .open()
        .expect("open");
    conn.admin().create_table(table("split")).expect("create");
    let t = conn.table("split").expect("table");
    let value = vec![b'v'; 1024];
    let rows = mib * 1024;
    let start = Instant::now();
    for i in 0..rows {
        // Scattered keys, so the split point falls mid-table.
        let key = format!("{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        t.put(&Put::new(key).add_column("cf", "q", value.clone()))
            .expect("put");
    }
    let name = TableName::parse("split").expect("name");
    conn.admin().flush(&name).expect("flush");
    if compact {
        conn.admin().major_compact(&name).expect("major compact");
    }
    let fill = start.elapsed();
    let region = conn.admin().regions(&name).expect("regions")[0].clone();
    let start = Instant::now();
    conn.admin()
        .split_region(&region.name, None)
        .expect("split");
    let split = start.elapsed();
    let daughters = conn.admin().regions(&name).expect("regions").len();
    println!(
        "| {} MiB | {} | {rows} | {:.1} s | {:.2} ms | {daughters} |",
        region.store_file_size >> 20,
        region.store_files,
        fill.as_secs_f64(),
        split.as_secs_f64() * 1000.0
    );
    conn.close().expect("close");
}

/// Puts of one 100-byte cell to random rows of an 8-region table from `threads` threads.
fn random_puts(root: &Path, threads: u64, durability: Durability) -> f64 {
    let conn = Connection::open(root).expect("open");
    let desc = table("puts").with_durability(durability);
    conn.admin()
        .create_table_pre_split(desc, 8, SplitAlgorithm::HexString)
        .expect("create");
    let done = AtomicBool::new(false);
    let count = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for w in 0..threads {
            let t = conn.table("puts").expect("table");
            let (done, count) = (&done, &count);
            s.spawn(move || {
                let mut x = w.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let mut n = 0;
                while !done.load(Ordering::Relaxed) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let key = format!("{:08x}", x as u32);
                    t.put(&Put::new(key).add_column("cf", "q", vec![b'v'; 100]))
                        .expect("put");
                    n += 1;
                }
                count.fetch_add(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(RUN);
        done.store(true, Ordering::Relaxed);
    });
    let rate = count.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64();
    conn.close().expect("close");
    rate
}
