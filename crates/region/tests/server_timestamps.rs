//! Timestamps the server assigns never go back within a row: a write the server stamps after
//! another is never hidden below it, even within one millisecond (docs/design/data-model.md,
//! "Server timestamps").

#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_common::ops::{Increment, RowMutations};
use basalt_common::{Delete, Get, Put};
use support::{cells, create_table, host_at};

fn counter(t: &basalt_region::Region, row: &str) -> Option<i64> {
    let r = t
        .get(&Get::new(row.to_owned()).add_column("f", "n"))
        .unwrap();
    r.cells
        .first()
        .map(|c| i64::from_be_bytes(c.value().try_into().unwrap()))
}

/// happybase's counter test: counter_inc, counter_set to 0, counter_inc again gives 1, with
/// the clock standing still throughout.
#[test]
fn a_counter_set_after_increments_in_the_same_millisecond_is_seen() {
    let (host, _clock) = host_at(1_000);
    let t = create_table(&host, "t", &["f"]);
    let inc = || {
        t.increment(&Increment::new("c").add_column("f", "n", 1i64))
            .unwrap()
    };
    inc();
    inc();
    inc();
    assert_eq!(counter(&t, "c"), Some(3));
    t.put(&Put::new("c").add_column("f", "n", 0i64.to_be_bytes().to_vec()))
        .unwrap();
    assert_eq!(counter(&t, "c"), Some(0));
    inc();
    assert_eq!(counter(&t, "c"), Some(1));
    // Every increment is a version of its own.
    let versions = t
        .get(&Get::new("c").add_column("f", "n").read_versions(10))
        .unwrap();
    let stamps: Vec<i64> = versions.cells.iter().map(|c| c.timestamp).collect();
    assert_eq!(
        stamps,
        [1_003, 1_002, 1_001, 1_000][..versions.cells.len().min(4)]
    );
    // A delete stamped by the server masks the counter, however far ahead it ran.
    t.delete(&Delete::new("c").add_columns("f", "n")).unwrap();
    assert_eq!(counter(&t, "c"), None);
}

#[test]
fn a_put_after_a_delete_in_the_same_millisecond_is_seen() {
    let (host, clock) = host_at(5_000);
    let t = create_table(&host, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "q", "old")).unwrap();
    t.delete(&Delete::new("r")).unwrap();
    assert!(t.get(&Get::new("r")).unwrap().cells.is_empty());
    t.put(&Put::new("r").add_column("f", "q", "new")).unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["f:q@5001=new"]);
    // Other rows keep the clock.
    t.put(&Put::new("s").add_column("f", "q", "v")).unwrap();
    assert_eq!(cells(&t.get(&Get::new("s")).unwrap()), ["f:q@5000=v"]);
    // Once the clock has passed, stamps follow it again.
    clock.advance(10);
    t.put(&Put::new("r").add_column("f", "q", "later")).unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["f:q@5010=later"]);
}

/// A timestamp the client chose is the client's: it moves no server stamp (as in HBase, a
/// server-stamped write below a future client timestamp stays hidden).
#[test]
fn client_timestamps_do_not_move_server_stamps() {
    let (host, _clock) = host_at(2_000);
    let t = create_table(&host, "t", &["f"]);
    t.put(&Put::new("r").add_column_at("f", "q", 9_000, "future"))
        .unwrap();
    t.put(&Put::new("r").add_column("f", "q", "now")).unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["f:q@9000=future"]);
}

/// Row mutations follow the rule too: a delete they stamp is followed, one later; a client's
/// timestamp among them moves nothing.
#[test]
fn row_mutations_follow_the_rule() {
    let (host, _clock) = host_at(3_000);
    let t = create_table(&host, "t", &["f"]);
    t.mutate_row(
        &RowMutations::new("r").add_put(Put::new("r").add_column_at("f", "q", 9_000, "future")),
    )
    .unwrap();
    t.put(&Put::new("r").add_column("f", "p", "now")).unwrap();
    assert_eq!(
        cells(&t.get(&Get::new("r")).unwrap()),
        ["f:p@3000=now", "f:q@9000=future"]
    );
    t.put(&Put::new("s").add_column("f", "q", "before"))
        .unwrap();
    t.mutate_row(&RowMutations::new("s").add_delete(Delete::new("s")))
        .unwrap();
    assert!(t.get(&Get::new("s")).unwrap().cells.is_empty());
    t.put(&Put::new("s").add_column("f", "q", "after")).unwrap();
    assert_eq!(cells(&t.get(&Get::new("s")).unwrap()), ["f:q@3001=after"]);
}
