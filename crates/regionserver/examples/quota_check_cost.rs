//! How long one throttle check takes, alone and from several threads at once (a profile aid
//! for issue 48's hot path; not a test):
//!   cargo run --release -p basalt-regionserver --example quota_check_cost
use std::sync::Arc;
use std::time::Instant;

use basalt_common::quota::{Direction, QuotaState, Quotas, Subject, parse_limit};
use basalt_regionserver::quotas::{QuotaCache, Usage};

fn main() {
    let mut q = Quotas::default();
    q.set(parse_limit("100000000req/sec", Direction::All).unwrap_or_else(|e| panic!("{e}")));
    let cache = QuotaCache::new("h:1".into());
    cache.apply(&QuotaState {
        quotas: vec![
            (Subject::User("basalt".into()), q.clone()),
            (Subject::RegionServer("all".into()), q),
        ],
        ..QuotaState::default()
    });
    std::thread::sleep(std::time::Duration::from_millis(100));
    let one = Usage {
        reads: 1,
        ..Usage::default()
    };
    for threads in [1, 4, 16] {
        let n = 1_000_000 / threads;
        let started = Instant::now();
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let cache = Arc::clone(&cache);
                std::thread::spawn(move || {
                    for _ in 0..n {
                        let _ = cache.check("basalt", None, one);
                    }
                })
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
        let per = started.elapsed().as_nanos() as f64 / (n * threads) as f64;
        println!("{threads} threads: {per:.0} ns per check (wall clock / checks)");
    }
}
