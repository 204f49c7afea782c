//! Increment, Append, RowMutations, CheckAndMutate and batch, with HBase's semantics
//! (reference §2): 8-byte counters, timestamps max(previous + 1, now), the expected value on
//! the left of a check, empty expected values meaning absence.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::{
    Append, BatchOp, BatchOutcome, CheckAction, CheckAndMutate, CompareOperator, Condition, Delete,
    Error, Get, Increment, Put, RowMutations,
};
use support::{connection_at, create_table};

fn counter(v: &[u8]) -> i64 {
    i64::from_be_bytes(v.try_into().unwrap())
}

#[test]
fn increments_add_to_several_counters_and_stamp_after_the_previous_version() {
    let (conn, clock) = connection_at(100);
    let t = create_table(&conn, "t", &["a", "b"]);
    let inc = Increment::new("r")
        .add_column("a", "x", 5)
        .add_column("b", "y", -2);
    let r = t.increment(&inc).unwrap();
    assert_eq!(counter(r.value(b"a", b"x").unwrap()), 5);
    assert_eq!(counter(r.value(b"b", b"y").unwrap()), -2);
    assert_eq!(r.latest_cell(b"a", b"x").unwrap().timestamp, 100);
    // Same millisecond: the new version goes one past the previous one.
    let r = t
        .increment(&Increment::new("r").add_column("a", "x", 1))
        .unwrap();
    assert_eq!(counter(r.value(b"a", b"x").unwrap()), 6);
    assert_eq!(r.latest_cell(b"a", b"x").unwrap().timestamp, 101);
    clock.advance(50);
    let r = t
        .increment(&Increment::new("r").add_column("a", "x", 1))
        .unwrap();
    assert_eq!(r.latest_cell(b"a", b"x").unwrap().timestamp, 150);
    let got = t.get(&Get::new("r")).unwrap();
    assert_eq!(counter(got.value(b"a", b"x").unwrap()), 7);
    // A cell that is not 8 bytes fails the whole increment, which changes nothing.
    t.put(&Put::new("r").add_column("b", "s", "abc")).unwrap();
    let err = t
        .increment(
            &Increment::new("r")
                .add_column("a", "x", 1)
                .add_column("b", "s", 1),
        )
        .unwrap_err();
    assert_eq!(err.to_string(), "Field is not a long, it's 3 bytes wide");
    assert_eq!(
        counter(t.get(&Get::new("r")).unwrap().value(b"a", b"x").unwrap()),
        7
    );
    assert!(matches!(
        t.increment(&Increment::new("r").add_column("nope", "x", 1)),
        Err(Error::NoSuchColumnFamily { .. })
    ));
    assert!(matches!(
        t.increment(&Increment::new("r")),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(t.increment_column_value(b"r", b"a", b"x", 3).unwrap(), 10);
}

#[test]
fn appends_concatenate_and_create_missing_cells() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let r = t
        .append(&Append::new("r").add_column("f", "q", "abc"))
        .unwrap();
    assert_eq!(r.value(b"f", b"q"), Some(&b"abc"[..]));
    let r = t
        .append(&Append::new("r").add_column("f", "q", "def"))
        .unwrap();
    assert_eq!(r.value(b"f", b"q"), Some(&b"abcdef"[..]));
    assert_eq!(r.latest_cell(b"f", b"q").unwrap().timestamp, 101);
    let got = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(got.column_cells(b"f", b"q").count(), 2);
    assert_eq!(got.value(b"f", b"q"), Some(&b"abcdef"[..]));
}

#[test]
fn row_mutations_apply_together_and_only_to_their_row() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "old", "1")).unwrap();
    let m = RowMutations::new("r")
        .add_put(Put::new("r").add_column("f", "new", "2"))
        .add_delete(Delete::new("r").add_columns("f", "old"));
    t.mutate_row(&m).unwrap();
    let got = t.get(&Get::new("r")).unwrap();
    assert_eq!(got.value(b"f", b"new"), Some(&b"2"[..]));
    assert_eq!(got.value(b"f", b"old"), None);
    let wrong = RowMutations::new("r").add_put(Put::new("other").add_column("f", "q", "x"));
    let err = t.mutate_row(&wrong).unwrap_err();
    assert!(err.to_string().contains("doesn't match"), "{err}");
    assert!(t.get(&Get::new("other")).unwrap().is_empty());
}

#[test]
fn check_and_mutate_compares_with_the_expected_value_on_the_left() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "q", "b")).unwrap();
    let put = |v: &str| CheckAction::Put(Put::new("r").add_column("f", "out", v.to_owned()));
    let check = |op, expected: &str, v: &str| {
        t.check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::matches("f", "q", op, expected.to_owned()),
            put(v),
        ))
        .unwrap()
        .success
    };
    // GREATER passes when expected > existing ("c" > "b").
    assert!(check(CompareOperator::Greater, "c", "1"));
    assert!(!check(CompareOperator::Greater, "a", "2"));
    assert!(check(CompareOperator::Less, "a", "3"));
    assert!(check(CompareOperator::Equal, "b", "4"));
    assert!(!check(CompareOperator::NotEqual, "b", "5"));
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"f", b"out"),
        Some(&b"4"[..])
    );
    // Absence.
    let if_absent = |q: &str, v: &str| {
        t.check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::not_exists("f", q.to_owned()),
            put(v),
        ))
        .unwrap()
        .success
    };
    assert!(!if_absent("q", "6"));
    assert!(if_absent("missing", "7"));
    // A delete, row mutations and an increment as actions.
    let r = t
        .check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::equals("f", "q", "b"),
            CheckAction::Increment(Increment::new("r").add_column("f", "n", 2)),
        ))
        .unwrap();
    assert!(r.success);
    assert_eq!(counter(r.result.unwrap().value(b"f", b"n").unwrap()), 2);
    assert!(
        t.check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::equals("f", "q", "b"),
            CheckAction::Delete(Delete::new("r").add_columns("f", "q")),
        ))
        .unwrap()
        .success
    );
    assert_eq!(t.get(&Get::new("r")).unwrap().value(b"f", b"q"), None);
    // The action must be of the checked row.
    assert!(matches!(
        t.check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::not_exists("f", "q"),
            CheckAction::Put(Put::new("s").add_column("f", "q", "x")),
        )),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn batches_return_an_outcome_per_operation() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let ops = vec![
        BatchOp::Put(Put::new("a").add_column("f", "q", "1")),
        BatchOp::Get(Get::new("a")),
        BatchOp::Increment(Increment::new("b").add_column("f", "n", 4)),
        BatchOp::Put(Put::new("c").add_column("nope", "q", "1")),
        BatchOp::Append(Append::new("a").add_column("f", "q", "2")),
        BatchOp::CheckAndMutate(CheckAndMutate::new(
            "a",
            Condition::equals("f", "q", "12"),
            // The append stamped its cell one past the put's (the clock stands still here):
            // a delete at "now" would not mask it.
            CheckAction::Delete(Delete::new("a").with_timestamp(1_000)),
        )),
        BatchOp::Get(Get::new("a")),
    ];
    let out = t.batch(&ops);
    assert_eq!(out.len(), 7);
    assert_eq!(out[0], Ok(BatchOutcome::Done));
    match &out[1] {
        Ok(BatchOutcome::Row(r)) => assert_eq!(r.value(b"f", b"q"), Some(&b"1"[..])),
        other => panic!("{other:?}"),
    }
    assert!(
        matches!(&out[2], Ok(BatchOutcome::Row(r)) if counter(r.value(b"f", b"n").unwrap()) == 4)
    );
    assert!(matches!(&out[3], Err(Error::NoSuchColumnFamily { .. })));
    assert!(matches!(&out[4], Ok(BatchOutcome::Row(r)) if r.value(b"f", b"q") == Some(&b"12"[..])));
    assert!(matches!(&out[5], Ok(BatchOutcome::CheckAndMutate(c)) if c.success));
    assert!(matches!(&out[6], Ok(BatchOutcome::Row(r)) if r.is_empty()));
}

#[test]
fn concurrent_check_and_mutates_let_exactly_one_writer_win() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let winners = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for w in 0..4 {
            let (t, winners) = (t.clone(), &winners);
            s.spawn(move || {
                for i in 0..200 {
                    let cam = CheckAndMutate::new(
                        format!("row{i}"),
                        Condition::not_exists("f", "owner"),
                        CheckAction::Put(Put::new(format!("row{i}")).add_column(
                            "f",
                            "owner",
                            format!("{w}"),
                        )),
                    );
                    if t.check_and_mutate(&cam).unwrap().success {
                        winners.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(winners.load(std::sync::atomic::Ordering::Relaxed), 200);
}
