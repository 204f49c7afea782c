//! WAL benchmarks (issue 5): the disk's fdatasync rate for small appends, then puts through the
//! embedded engine at FSYNC_WAL with 1, 4, 16 and 64 writers (group commit), and single-writer
//! SYNC_WAL beside SKIP_WAL puts. Beside each group commit figure it runs a bare group commit
//! (threads appending a record to a file and waiting for a shared `fdatasync`, no engine), to
//! show what the machine's scheduling allows that pattern at all. Run with
//! `cargo bench -p basalt-client --bench wal`; each figure runs for about two seconds in a
//! directory under `target/`, on the machine's disk.
//! BENCHMARKS.md records results.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use basalt_embedded::{ColumnFamilyDescriptor, Connection, Durability, Put, TableDescriptor};

const RUN: Duration = Duration::from_secs(2);

fn main() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/wal-bench");
    std::fs::create_dir_all(&base).expect("bench directory");
    let dir = tempfile::tempdir_in(&base).expect("temp dir");

    // `-- N bare`: only the bare group commit with N writers.
    // `-- N [sync|skip]`: only puts from N writers at FSYNC_WAL (or SYNC_WAL, SKIP_WAL),
    // for profiling and for the ceilings group commit works under.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(writers) = args.iter().find_map(|a| a.parse::<usize>().ok()) {
        if args.iter().any(|a| a == "bare") {
            let commits = bare_group_commit(dir.path(), writers);
            println!("bare group commit, {writers} writers: {commits:.0} commits/s");
            return;
        }
        let (name, durability) = if args.iter().any(|a| a == "sync") {
            ("SYNC_WAL", Durability::SyncWal)
        } else if args.iter().any(|a| a == "skip") {
            ("SKIP_WAL", Durability::SkipWal)
        } else {
            ("FSYNC_WAL", Durability::FsyncWal)
        };
        let puts = puts_per_second(&dir.path().join("only"), writers, durability);
        println!("{name}, {writers} writers: {puts:.0} puts/s");
        return;
    }
    let rate = fdatasync_rate(dir.path());
    println!("fdatasync of 100-byte appends: {rate:.0}/s");
    println!();
    println!(
        "| writers | FSYNC_WAL puts/s | bare group commit, commits/s | target: writers x 0.8 x fdatasync rate |"
    );
    println!("|---|---|---|---|");
    for (i, writers) in [1, 4, 16, 64].into_iter().enumerate() {
        let root = dir.path().join(format!("fsync{i}"));
        let puts = puts_per_second(&root, writers, Durability::FsyncWal);
        let bare = bare_group_commit(dir.path(), writers);
        let target = writers as f64 * 0.8 * rate;
        println!("| {writers} | {puts:.0} | {bare:.0} | {target:.0} |");
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

/// The queue a bare group commit shares: records not yet written, tickets, and whether a
/// leader is writing.
#[derive(Default)]
struct Bare {
    queued: Vec<u8>,
    appended: u64,
    synced: u64,
    written_to: u64,
    leading: bool,
}

/// The textbook group commit, with nothing else around it, for [`RUN`]: each of `writers`
/// threads appends a 120-byte record under a lock and waits on a condition variable until a
/// sync covers it; a waiter that finds nobody writing leads (writes the queue with one
/// `pwrite`, one `fdatasync`, then wakes everyone). The file is written with zeros first, as
/// the WAL reserves its segments. Returns commits per second.
fn bare_group_commit(dir: &Path, writers: usize) -> f64 {
    use std::os::unix::fs::FileExt;
    use std::sync::{Condvar, Mutex};

    let path = dir.join("bare-group-commit");
    let mut file = std::fs::File::create(&path).expect("create");
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        file.write_all(&zeros).expect("write zeros");
    }
    file.sync_all().expect("sync");
    let shared = Arc::new((Mutex::new(Bare::default()), Condvar::new(), file));
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let threads: Vec<_> = (0..writers)
        .map(|_| {
            let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
            std::thread::spawn(move || {
                let (lock, synced, file) = &*shared;
                let mut commits = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    let mut st = lock.lock().expect("lock");
                    st.queued.extend_from_slice(&[7u8; 120]);
                    st.appended += 1;
                    let ticket = st.appended;
                    while st.synced < ticket {
                        if st.leading {
                            st = synced.wait(st).expect("wait");
                            continue;
                        }
                        st.leading = true;
                        let batch = std::mem::take(&mut st.queued);
                        let (upto, at) = (st.appended, st.written_to);
                        st.written_to += batch.len() as u64;
                        drop(st);
                        file.write_all_at(&batch, at).expect("write");
                        file.sync_data().expect("fdatasync");
                        st = lock.lock().expect("lock");
                        st.synced = upto;
                        st.leading = false;
                        synced.notify_all();
                    }
                    commits += 1;
                }
                commits
            })
        })
        .collect();
    std::thread::sleep(RUN);
    stop.store(true, Ordering::Relaxed);
    let commits: u64 = threads.into_iter().map(|t| t.join().expect("writer")).sum();
    let elapsed = start.elapsed().as_secs_f64();
    std::fs::remove_file(&path).expect("remove");
    commits as f64 / elapsed
}
