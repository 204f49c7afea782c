//! The process-level crash test: a child process writes under SYNC_WAL, with flushes and
//! background compactions going on, and reports each acknowledged write; it is killed with SIGKILL at a
//! random moment, and every write it acknowledged must be there when the directory reopens.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use basalt_embedded::{ColumnFamilyDescriptor, Connection, Durability, Get, Put, TableDescriptor};

const CHILD_ENV: &str = "BASALT_PROCESS_CRASH_CHILD";
const ROUNDS: u64 = 5;

/// The child: writes rows until killed, printing `ack <n>` after each acknowledged put.
fn child(dir: &Path, round: u64) {
    let conn = Connection::open(dir).unwrap();
    if !conn.admin().table_exists(&"t".parse().unwrap()) {
        let mut desc = TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("cf"))
            .with_durability(Durability::SyncWal);
        // The smallest memstores allowed: flushes happen on their own too.
        desc.memstore_flushsize = 1024 * 1024;
        conn.admin().create_table(desc).unwrap();
    }
    let t = conn.table("t").unwrap();
    let mut out = std::io::stdout().lock();
    // Bounded: the parent kills it long before this ends.
    for n in 0..1_000_000u64 {
        let row = format!("round{round}-row{n:07}");
        t.put(&Put::new(row).add_column("cf", "q", vec![b'v'; 200]))
            .unwrap();
        writeln!(out, "ack {n}").unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_killed_process_loses_no_acknowledged_sync_wal_write() {
    if let Ok(spec) = std::env::var(CHILD_ENV) {
        let (dir, round) = spec.split_once('|').unwrap();
        child(Path::new(dir), round.parse().unwrap());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x5EED_u64;
    for round in 0..ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "a_killed_process_loses_no_acknowledged_sync_wal_write",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, format!("{}|{round}", dir.path().display()))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill it after a random number of acknowledgements (or after ten seconds).
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let kill_after = 200 + (seed >> 33) % 3000;
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut acked = None;
        for line in BufReader::new(child.stdout.take().unwrap()).lines() {
            let Ok(line) = line else { break };
            if let Some(n) = line.strip_prefix("ack ") {
                let n: u64 = n.parse().unwrap();
                acked = Some(n);
                if n >= kill_after || Instant::now() > deadline {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let acked = acked.expect("the child acknowledged nothing");

        let conn = Connection::open(dir.path()).unwrap();
        let t = conn.table("t").unwrap();
        for n in 0..=acked {
            let row = format!("round{round}-row{n:07}");
            let r = t.get(&Get::new(row.clone())).unwrap();
            assert!(
                r.value(b"cf", b"q").is_some(),
                "round {round}: acknowledged {row} is missing (acked up to {acked})"
            );
        }
        conn.close().unwrap();
    }
}
