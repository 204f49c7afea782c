//! The checker is trusted only after it gives every known history its known verdict
//! (`tests/linearizability/`, from the Porcupine checker's test data): 102 Jepsen etcd
//! histories with the verdict each must get (of 103; one has none), and key-value histories of 1, 10 and 50 clients,
//! linearizable (`-ok`) and not (`-bad`). Each must be decided, not timed out.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use basalt_chaos::linearizability::{Verdict, check};
use basalt_chaos::models::{KeyValue, Registers};
use basalt_chaos::{jepsen, linearizability};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/linearizability")
}

const BUDGET: Duration = Duration::from_secs(30);

#[test]
fn every_etcd_history_gets_its_verdict() {
    let expected = std::fs::read_to_string(data().join("expected-etcd.tsv")).expect("verdicts");
    let mut checked = 0;
    let mut slowest = (Duration::ZERO, String::new());
    for line in expected.lines().skip(1) {
        let (file, verdict) = line.split_once('\t').expect("file<TAB>verdict");
        let want = verdict.trim() == "true";
        let log = std::fs::read_to_string(data().join(file)).expect("history");
        let history = jepsen::etcd(&log).unwrap_or_else(|e| panic!("{file}: {e}"));
        let started = Instant::now();
        let got = check(&Registers, &history, BUDGET);
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, file.to_owned());
        }
        assert!(
            !matches!(got, Verdict::Unknown { .. }),
            "{file}: undecided in {BUDGET:?}"
        );
        assert_eq!(got.is_linearizable(), want, "{file}: {got:?}");
        checked += 1;
    }
    // etcd_095 has no verdict in the data (Porcupine's tests leave it out): 102 of the 103.
    assert_eq!(checked, 102);
    println!(
        "102 etcd histories decided; slowest {} in {:?}",
        slowest.1, slowest.0
    );
    let unjudged =
        std::fs::read_to_string(data().join("test_data/jepsen/etcd_095.log")).expect("history");
    let history = jepsen::etcd(&unjudged).expect("etcd_095 reads");
    let started = Instant::now();
    let got = check(&Registers, &history, Duration::from_secs(5));
    println!(
        "etcd_095 (no verdict given): {got:?} in {:?}",
        started.elapsed()
    );
}

#[test]
fn key_value_histories_get_their_verdicts() {
    for clients in ["c01", "c10", "c50"] {
        for (suffix, want) in [("ok", true), ("bad", false)] {
            let file = format!("test_data/kv/{clients}-{suffix}.txt");
            let text = std::fs::read_to_string(data().join(&file)).expect("history");
            let history = jepsen::kv(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(history.len() > 10, "{file}: {} operations", history.len());
            let got = check(&KeyValue, &history, BUDGET);
            assert!(
                !matches!(got, Verdict::Unknown { .. }),
                "{file}: undecided in {BUDGET:?}"
            );
            assert_eq!(got.is_linearizable(), want, "{file}: {got:?}");
        }
    }
}

#[test]
fn an_illegal_history_names_its_key_and_where_it_got_stuck() {
    let text = std::fs::read_to_string(data().join("test_data/kv/c10-bad.txt")).expect("history");
    let history = jepsen::kv(&text).expect("parse");
    let linearizability::Verdict::Illegal { key, stuck_at, .. } =
        check(&KeyValue, &history, BUDGET)
    else {
        panic!("c10-bad is not linearizable");
    };
    assert!(!key.is_empty());
    let stuck = stuck_at.expect("an operation it could not place");
    assert_eq!(history[stuck].input.0, key);
}
