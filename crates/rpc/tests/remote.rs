//! One behaviour suite run three times: on an embedded table, and on the same table of a
//! server reached through the blocking `RemoteTable` and the async `AsyncTable` (native RPC).
//! Each scenario writes a transcript of what it read; the transcripts must be equal, and each
//! scenario checks HBase's expected answers as it goes. Then what only the remote sides have:
//! regions that move under a cached location, and a server that goes away. Administration's
//! three-way suite is `remote_admin.rs`; the sides both run on, `sides/`.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Append, BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, ColumnFamilyDescriptor,
    CompareOperator, Condition, Connection, Delete, ErrorKind, Get, Increment, Put, RowMutations,
    Scan, TableDescriptor, TableName,
};
use sides::{Async, Ops, rows, show};
use support::serve as server;

mod sides;
mod support;

/// A fresh engine with table `t` (families `f` and `g`, VERSIONS 5, split at `m`).
fn engine() -> Connection {
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f").with_max_versions(5))
        .with_family(ColumnFamilyDescriptor::new("g").with_max_versions(5));
    conn.admin()
        .create_table_with_splits(desc, &[Bytes::from_static(b"m")])
        .unwrap();
    conn
}

/// Runs `scenario` embedded, remote and remote async; their transcripts must agree.
fn both(scenario: fn(&dyn Ops, &mut Vec<String>)) {
    let embedded = engine();
    let mut local = Vec::new();
    scenario(&embedded.table("t").unwrap(), &mut local);

    let served = engine();
    let server = server(&served);
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    scenario(&remote.table("t").unwrap(), &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote disagree");
    assert!(!local.is_empty());

    let served = engine();
    let server = support::serve(&served);
    let remote = Async::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    scenario(&remote.on("t"), &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote async disagree");
}

/// What travels as attributes and scan options rather than as cells: a mutation's cell TTL,
/// per-family time ranges of gets and scans, partial rows cut at a result size, and limits.
#[test]
fn cell_ttls_family_time_ranges_partial_rows_and_limits() {
    both(|t, log| {
        // A cell TTL of 1 ms on a cell written a minute ago: expired at once; a day: kept.
        let old = i64::try_from(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_millis(),
        )
        .unwrap()
            - 60_000;
        t.put(
            &Put::new("ttl")
                .add_column_at("f", "gone", old, "x")
                .with_ttl_ms(1),
        )
        .unwrap();
        t.put(
            &Put::new("ttl")
                .add_column_at("f", "kept", old, "y")
                .with_ttl_ms(86_400_000),
        )
        .unwrap();
        let ttl = t.get(&Get::new("ttl")).unwrap();
        assert_eq!(show(&ttl), format!("ttl: f:kept@{old}=y"));
        log.push(format!("{} cells", ttl.cells.len()));
        let inc = t
            .increment(
                &Increment::new("counter")
                    .add_column("f", "n", 1i64)
                    .with_ttl_ms(1),
            )
            .unwrap();
        assert_eq!(inc.cells.len(), 1);
        // Family time ranges: f read at [0, 3), g at the read's own range.
        for ts in 1..=4 {
            t.put(
                &Put::new("ranges")
                    .add_column_at("f", "q", ts, format!("f{ts}"))
                    .add_column_at("g", "q", ts, format!("g{ts}")),
            )
            .unwrap();
        }
        let got = t
            .get(&Get::new("ranges").with_family_time_range("f", 0, 3))
            .unwrap();
        assert_eq!(show(&got), "ranges: f:q@2=f2 g:q@4=g4");
        log.push(show(&got));
        let scanned = t
            .scan(
                &Scan::new()
                    .with_start_row("ranges")
                    .with_stop_row("ranges\0")
                    .with_family_time_range("g", 1, 2),
            )
            .unwrap();
        assert_eq!(
            scanned.iter().map(show).collect::<Vec<_>>(),
            ["ranges: f:q@4=f4 g:q@1=g1"]
        );
        log.push(show(&scanned[0]));
        // A wide row cut into parts of about 300 bytes when partial results are allowed.
        let mut wide = Put::new("wide");
        for i in 0..10 {
            wide = wide.add_column_at("f", format!("c{i}"), 1, vec![b'x'; 100]);
        }
        t.put(&wide).unwrap();
        let parts = t
            .scan(
                &Scan::new()
                    .with_start_row("wide")
                    .with_stop_row("wide\0")
                    .with_max_result_size(300)
                    .with_allow_partial_results(true),
            )
            .unwrap();
        assert!(parts.len() > 1, "{} parts", parts.len());
        assert_eq!(parts.iter().map(|r| r.cells.len()).sum::<usize>(), 10);
        assert!(parts[..parts.len() - 1].iter().all(|r| r.partial));
        assert!(!parts[parts.len() - 1].partial);
        log.push(format!(
            "{:?}",
            parts
                .iter()
                .map(|r| (r.cells.len(), r.partial))
                .collect::<Vec<_>>()
        ));
        // A limit counts whole rows, however many parts each comes in.
        let mut second = Put::new("wide2");
        for i in 0..10 {
            second = second.add_column_at("f", format!("c{i}"), 1, vec![b'y'; 100]);
        }
        t.put(&second).unwrap();
        let two = t
            .scan(
                &Scan::new()
                    .with_start_row("wide")
                    .with_max_result_size(300)
                    .with_allow_partial_results(true)
                    .with_limit(2),
            )
            .unwrap();
        let rows: BTreeSet<&[u8]> = two.iter().map(|r| &r.row[..]).collect();
        assert_eq!(rows.len(), 2, "{:?}", rows);
        assert_eq!(two.iter().map(|r| r.cells.len()).sum::<usize>(), 20);
        log.push(format!("{} parts of 2 rows", two.len()));
        // A limit counts rows over the whole scan.
        let limited = t
            .scan(
                &Scan::new()
                    .with_start_row("r")
                    .with_limit(2)
                    .with_caching(1),
            )
            .unwrap();
        let keys: Vec<&[u8]> = limited.iter().map(|r| &r.row[..]).collect();
        assert_eq!(keys, [&b"ranges"[..], b"ttl"]);
        log.push(format!("{keys:?}"));
    });
}

#[test]
fn versions_columns_and_time_ranges() {
    both(|t, log| {
        for ts in 1..=6 {
            t.put(&Put::new("a").add_column_at("f", "q", ts, format!("v{ts}")))
                .unwrap();
        }
        t.put(&Put::new("a").add_column_at("g", "r", 3, "g3"))
            .unwrap();
        let newest = t.get(&Get::new("a")).unwrap();
        assert_eq!(show(&newest), "a: f:q@6=v6 g:r@3=g3");
        log.push(show(&newest));
        // VERSIONS 5 keeps five; a read asks for up to that many.
        let all = t.get(&Get::new("a").read_versions(10)).unwrap();
        assert_eq!(all.cells.len(), 6);
        log.push(show(&all));
        let ranged = t
            .get(&Get::new("a").read_versions(10).with_time_range(2, 4))
            .unwrap();
        assert_eq!(show(&ranged), "a: f:q@3=v3 f:q@2=v2 g:r@3=g3");
        log.push(show(&ranged));
        let column = t.get(&Get::new("a").add_column("g", "r")).unwrap();
        assert_eq!(show(&column), "a: g:r@3=g3");
        log.push(show(&column));
        let family = t.get(&Get::new("a").add_family("f")).unwrap();
        log.push(show(&family));
        let missing = t.get(&Get::new("nope")).unwrap();
        assert!(missing.cells.is_empty());
        log.push(show(&missing));
    });
}

#[test]
fn deletes_of_each_kind() {
    both(|t, log| {
        for ts in 1..=3 {
            t.put(
                &Put::new("d")
                    .add_column_at("f", "a", ts, format!("a{ts}"))
                    .add_column_at("f", "b", ts, format!("b{ts}"))
                    .add_column_at("g", "c", ts, format!("c{ts}")),
            )
            .unwrap();
        }
        let get = Get::new("d").read_versions(5);
        t.delete(&Delete::new("d").add_column("f", "a")).unwrap();
        log.push(show(&t.get(&get).unwrap()));
        t.delete(&Delete::new("d").add_columns_at("f", "b", 2))
            .unwrap();
        log.push(show(&t.get(&get).unwrap()));
        t.delete(&Delete::new("d").add_family_version("g", 2))
            .unwrap();
        log.push(show(&t.get(&get).unwrap()));
        t.delete(&Delete::new("d").add_family("f")).unwrap();
        let left = t.get(&get).unwrap();
        assert_eq!(show(&left), "d: g:c@3=c3 g:c@1=c1");
        log.push(show(&left));
        t.delete(&Delete::new("d")).unwrap();
        assert!(t.get(&get).unwrap().cells.is_empty());
    });
}

#[test]
fn increments_and_appends() {
    both(|t, log| {
        for _ in 0..3 {
            let r = t
                .increment(&Increment::new("n").add_column("f", "hits", 5))
                .unwrap();
            log.push(format!("{:?}", r.value(b"f", b"hits")));
        }
        let got = t.get(&Get::new("n")).unwrap();
        assert_eq!(got.value(b"f", b"hits"), Some(&15i64.to_be_bytes()[..]));
        let r = t
            .append(&Append::new("s").add_column("f", "log", "ab"))
            .unwrap();
        log.push(format!("{:?}", r.value(b"f", b"log")));
        let r = t
            .append(&Append::new("s").add_column("f", "log", "cd"))
            .unwrap();
        assert_eq!(r.value(b"f", b"log"), Some(&b"abcd"[..]));
    });
}

#[test]
fn scans_cross_regions_with_bounds_limits_and_columns() {
    both(|t, log| {
        let names = ["a", "b", "k", "l", "m", "n", "x", "z"];
        for (i, r) in names.iter().enumerate() {
            t.put(
                &Put::new(*r)
                    .add_column_at("f", "q", 1, format!("{i}"))
                    .add_column_at("g", "q", 1, format!("g{i}")),
            )
            .unwrap();
        }
        let whole = rows(t, &Scan::new());
        assert_eq!(whole.len(), names.len());
        log.extend(whole);
        let ranged = rows(t, &Scan::new().with_start_row("b").with_stop_row("n"));
        assert_eq!(ranged.len(), 4, "{ranged:?}");
        log.extend(ranged);
        let inclusive = rows(
            t,
            &Scan::new()
                .with_start_row_inclusive("b", false)
                .with_stop_row_inclusive("n", true),
        );
        assert_eq!(inclusive.len(), 4, "{inclusive:?}");
        log.extend(inclusive);
        let limited = rows(t, &Scan::new().with_start_row("k").with_limit(3));
        assert_eq!(limited.len(), 3);
        log.extend(limited);
        let small_calls = rows(t, &Scan::new().with_caching(2).add_family("g"));
        assert_eq!(small_calls.len(), names.len());
        log.extend(small_calls);
        // Reversed: whole, bounded across the region boundary at m, from the boundary
        // itself (inclusive and not), limited.
        let back = rows(t, &Scan::new().reversed(true));
        assert_eq!(back.len(), names.len());
        assert!(
            back[0].starts_with("z:") && back[7].starts_with("a:"),
            "{back:?}"
        );
        log.extend(back);
        let back_ranged = rows(
            t,
            &Scan::new()
                .reversed(true)
                .with_start_row("n")
                .with_stop_row("b"),
        );
        assert_eq!(back_ranged.len(), 4, "{back_ranged:?}");
        log.extend(back_ranged);
        let from_m = rows(t, &Scan::new().reversed(true).with_start_row("m"));
        assert!(from_m[0].starts_with("m:"), "{from_m:?}");
        log.extend(from_m);
        let below_m = rows(
            t,
            &Scan::new()
                .reversed(true)
                .with_start_row_inclusive("m", false)
                .with_limit(2),
        );
        assert_eq!(below_m.len(), 2);
        assert!(below_m[0].starts_with("l:"), "{below_m:?}");
        log.extend(below_m);
    });
}

#[test]
fn filters_on_gets_and_scans() {
    use basalt_embedded::{Comparator, CompareOperator, FilterSpec};
    both(|t, log| {
        for (i, r) in ["a", "b", "k", "n", "p", "x"].iter().enumerate() {
            t.put(
                &Put::new(*r)
                    .add_column_at("f", "q", 1, format!("v{i}"))
                    .add_column_at("g", "flag", 1, if i % 2 == 0 { "on" } else { "off" }),
            )
            .unwrap();
        }
        let value = |v: &str| {
            FilterSpec::Value(
                CompareOperator::Equal,
                Comparator::Binary(Bytes::copy_from_slice(v.as_bytes())),
            )
        };
        let got = t.get(&Get::new("k").with_filter(value("v2"))).unwrap();
        assert_eq!(show(&got), "k: f:q@1=v2");
        log.push(show(&got));
        let on = FilterSpec::SingleColumnValue {
            family: Bytes::from_static(b"g"),
            qualifier: Bytes::from_static(b"flag"),
            op: CompareOperator::Equal,
            comparator: Comparator::Binary(Bytes::from_static(b"on")),
            filter_if_missing: true,
            latest_version_only: true,
            exclude: false,
        };
        let flagged = rows(t, &Scan::new().with_filter(on));
        assert_eq!(flagged.len(), 3, "{flagged:?}");
        log.extend(flagged);
        // A filter that ends the scan ends it across regions too.
        // (Rows past the first region would pass again if the next region started afresh.)
        let while_low = FilterSpec::WhileMatch(Box::new(FilterSpec::Row(
            CompareOperator::NotEqual,
            Comparator::Binary(Bytes::from_static(b"k")),
        )));
        let early = rows(t, &Scan::new().with_filter(while_low));
        assert_eq!(early.len(), 2, "{early:?}");
        log.extend(early);
        let prefixed = rows(
            t,
            &Scan::new().with_filter(FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::Prefix(Bytes::from_static(b"n")),
                    FilterSpec::Prefix(Bytes::from_static(b"x")),
                ],
            }),
        );
        assert_eq!(prefixed.len(), 2, "{prefixed:?}");
        log.extend(prefixed);
    });
}

#[test]
fn row_mutations_and_check_and_mutate() {
    both(|t, log| {
        t.put(&Put::new("r").add_column_at("f", "a", 1, "1"))
            .unwrap();
        let both_ways = RowMutations::new("r")
            .add_put(Put::new("r").add_column_at("f", "b", 2, "2"))
            .add_delete(Delete::new("r").add_columns("f", "a"));
        let results = t.mutate_row(&both_ways).unwrap();
        assert!(results.len() == 2 && results.iter().all(|r| r.cells.is_empty()));
        let after = t.get(&Get::new("r")).unwrap();
        assert_eq!(show(&after), "r: f:b@2=2");
        log.push(show(&after));
        // Increments and appends join a row's atomic mutations (HBase 2.4+), each read as the
        // row was before, each answering with its new cells.
        t.put(&Put::new("r").add_column("f", "n", 40i64.to_be_bytes().to_vec()))
            .unwrap();
        let mixed = RowMutations::new("r")
            .add_increment(Increment::new("r").add_column("f", "n", 2i64))
            .add_put(Put::new("r").add_column("f", "p", "put"))
            .add_append(Append::new("r").add_column("f", "s", Bytes::from_static(b"+")))
            .add_delete(Delete::new("r").add_columns("f", "p2"));
        let results = t.mutate_row(&mixed).unwrap();
        let values: Vec<Vec<Vec<u8>>> = results
            .iter()
            .map(|r| r.cells.iter().map(|c| c.value().to_vec()).collect())
            .collect();
        assert_eq!(
            values,
            vec![
                vec![42i64.to_be_bytes().to_vec()],
                vec![],
                vec![b"+".to_vec()],
                vec![]
            ]
        );
        let after = t.get(&Get::new("r")).unwrap();
        let cols: Vec<String> = after
            .cells
            .iter()
            .map(|c| String::from_utf8_lossy(c.qualifier()).into_owned())
            .collect();
        assert_eq!(cols, ["b", "n", "p", "s"]);
        log.push(format!("{values:?}"));
        // (Their server timestamps differ between the two modes: out of the later logs.)
        t.delete(
            &Delete::new("r")
                .add_columns("f", "n")
                .add_columns("f", "p")
                .add_columns("f", "s"),
        )
        .unwrap();

        let when = |v: &str| {
            Condition::matches(
                "f",
                "b",
                CompareOperator::Equal,
                Bytes::copy_from_slice(v.as_bytes()),
            )
        };
        let swap = |v: &str, to: &str| {
            CheckAndMutate::new(
                "r",
                when(v),
                CheckAction::Put(Put::new("r").add_column_at("f", "b", 3, to.to_owned())),
            )
        };
        let miss = t.check_and_mutate(&swap("nope", "x")).unwrap();
        assert!(!miss.success);
        let hit = t.check_and_mutate(&swap("2", "3")).unwrap();
        assert!(hit.success);
        log.push(format!("{} {}", miss.success, hit.success));
        // Absent: an empty expected value.
        let absent = CheckAndMutate::new(
            "r",
            Condition::matches("f", "c", CompareOperator::Equal, Bytes::new()),
            CheckAction::RowMutations(
                RowMutations::new("r").add_put(Put::new("r").add_column_at("f", "c", 4, "c")),
            ),
        );
        assert!(t.check_and_mutate(&absent).unwrap().success);
        assert!(!t.check_and_mutate(&absent).unwrap().success);
        // An increment under a condition returns its new cells.
        let counted = CheckAndMutate::new(
            "r",
            when("3"),
            CheckAction::Increment(Increment::new("r").add_column("g", "n", 2)),
        );
        let out = t.check_and_mutate(&counted).unwrap();
        assert!(out.success);
        log.push(format!(
            "{:?}",
            out.result.as_ref().and_then(|r| r.value(b"g", b"n"))
        ));
        let row = t.get(&Get::new("r")).unwrap();
        // (The counter's timestamp is the server's clock: left out of the transcript.)
        log.push(show(&t.get(&Get::new("r").add_family("f")).unwrap()));
        log.push(format!("{:?}", row.value(b"g", b"n")));
        assert_eq!(row.value(b"f", b"b"), Some(&b"3"[..]));
        assert_eq!(row.value(b"f", b"c"), Some(&b"c"[..]));
    });
}

#[test]
fn batches_of_every_kind() {
    both(|t, log| {
        let ops = [
            BatchOp::Put(Put::new("a").add_column_at("f", "q", 1, "a")),
            BatchOp::Put(Put::new("x").add_column_at("f", "q", 1, "x")),
            BatchOp::Get(Get::new("a")),
            BatchOp::Put(Put::new("b").add_column("nope", "q", "v")),
            BatchOp::Delete(Delete::new("x")),
            BatchOp::Get(Get::new("x")),
            BatchOp::Append(Append::new("a").add_column("f", "q", "!")),
            BatchOp::RowMutations(
                RowMutations::new("n").add_put(Put::new("n").add_column_at("f", "q", 1, "n")),
            ),
            BatchOp::CheckAndMutate(CheckAndMutate::new(
                "n",
                Condition::matches("f", "q", CompareOperator::Equal, Bytes::from_static(b"n")),
                CheckAction::Delete(Delete::new("n")),
            )),
        ];
        let outcomes = t.batch(&ops);
        assert_eq!(outcomes.len(), ops.len());
        for o in &outcomes {
            log.push(match o {
                // (Values only: an append's timestamp is the server's clock.)
                Ok(BatchOutcome::Row(r)) => format!(
                    "{}: {:?}",
                    String::from_utf8_lossy(&r.row),
                    r.cells
                        .iter()
                        .map(|c| c.value().to_vec())
                        .collect::<Vec<_>>()
                ),
                Ok(BatchOutcome::Done) => "done".into(),
                Ok(BatchOutcome::Rows(rows)) => format!("{} results", rows.len()),
                Ok(BatchOutcome::CheckAndMutate(c)) => format!("checked {}", c.success),
                Err(e) => format!("error {:?}", e.kind()),
            });
        }
        assert!(outcomes[3].is_err() && outcomes[2].is_ok());
        assert!(t.get(&Get::new("n")).unwrap().cells.is_empty());
    });
}

#[test]
fn errors_are_the_same_kinds() {
    both(|t, log| {
        let e = t
            .put(&Put::new("a").add_column("nope", "q", "v"))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");
        log.push(format!("{:?}", e.kind()));
        let e = t.put(&Put::new("")).unwrap_err();
        log.push(format!("{:?}", e.kind()));
    });
    let served = engine();
    let server = server(&served);
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let e = remote
        .table("missing")
        .unwrap()
        .get(&Get::new("a"))
        .unwrap_err();
    assert!(
        matches!(&e, basalt_embedded::Error::TableNotFound(n) if *n == TableName::parse("missing").unwrap()),
        "{e}"
    );
    let remote = Async::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let e = remote.on("missing").get(&Get::new("a")).unwrap_err();
    assert!(
        matches!(&e, basalt_embedded::Error::TableNotFound(n) if *n == TableName::parse("missing").unwrap()),
        "{e}"
    );
    server.shutdown();
}

#[test]
fn a_region_that_moves_is_found_again() {
    let served = engine();
    let server = server(&served);
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    region_moves(&served, &remote.table("t").unwrap());
    server.shutdown();
}

#[test]
fn a_region_that_moves_is_found_again_async() {
    let served = engine();
    let server = support::serve(&served);
    let remote = Async::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    region_moves(&served, &remote.on("t"));
    server.shutdown();
}

fn region_moves(served: &Connection, t: &dyn Ops) {
    for r in ["n", "p", "s", "w"] {
        t.put(&Put::new(r).add_column("f", "q", r)).unwrap();
    }
    // The cached location of [m, end) stops serving: the region splits in two.
    served
        .admin()
        .split(&TableName::parse("t").unwrap(), Some(b"r"))
        .unwrap();
    assert_eq!(
        t.get(&Get::new("s")).unwrap().value(b"f", b"q"),
        Some(&b"s"[..])
    );
    t.put(&Put::new("u").add_column("f", "q", "u")).unwrap();
    // A batch sent with stale locations: its Multi names a region that no longer serves, and
    // those operations run again on their own.
    split_once_compacted(served, b"v");
    let outcomes = t.batch(&[
        BatchOp::Get(Get::new("w")),
        BatchOp::Put(Put::new("y").add_column("f", "q", "y")),
        BatchOp::Get(Get::new("n")),
    ]);
    let rows: Vec<String> = outcomes
        .iter()
        .map(|o| match o {
            Ok(BatchOutcome::Row(r)) => show(r),
            Ok(BatchOutcome::Done) => "done".into(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(rows.len(), 3);
    assert!(
        rows[0].starts_with("w: f:q@") && rows[0].ends_with("=w"),
        "{rows:?}"
    );
    assert_eq!(rows[1], "done");
    assert!(rows[2].starts_with("n: f:q@"), "{rows:?}");
    t.delete(&Delete::new("y")).unwrap();
    let all: Vec<Bytes> = t
        .scan(&Scan::new().with_start_row("m"))
        .unwrap()
        .into_iter()
        .map(|r| r.row)
        .collect();
    assert_eq!(
        all,
        ["n", "p", "s", "u", "w"].map(|r| Bytes::from_static(r.as_bytes()))
    );
}

/// Splits `t` at `at`, waiting (boundedly) while the region holding it still has references
/// to a parent's files (the background compaction of an earlier split rewrites them).
fn split_once_compacted(served: &Connection, at: &[u8]) {
    let name = TableName::parse("t").unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match served.admin().split(&name, Some(at)) {
            Err(basalt_embedded::Error::Refused(m)) if m.contains("references") => {
                assert!(Instant::now() < deadline, "the references stayed: {m}");
                std::thread::sleep(Duration::from_millis(20));
            }
            other => return other.unwrap(),
        }
    }
}

#[test]
fn a_server_that_goes_away_fails_within_the_operation_timeout() {
    let served = engine();
    let server = server(&served);
    let config = RemoteConfig {
        operation_timeout: Duration::from_millis(800),
        rpc_timeout: Duration::from_millis(500),
        pause: Duration::from_millis(50),
        max_pause: Duration::from_millis(200),
        ..RemoteConfig::default()
    };
    let remote = RemoteConnection::connect(server.local_addr(), config.clone()).unwrap();
    let asynchronous = Async::connect(server.local_addr(), config).unwrap();
    let t = remote.table("t").unwrap();
    let sides: [&dyn Ops; 2] = [&t, &asynchronous.on("t")];
    for t in sides {
        t.put(&Put::new("a").add_column("f", "q", "v")).unwrap();
    }
    server.shutdown();
    for t in sides {
        let started = Instant::now();
        let e = t.get(&Get::new("a")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_buffered_mutator_writes_through_a_remote_connection() {
    let served = engine();
    let server = server(&served);
    let remote = std::sync::Arc::new(
        RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap(),
    );
    // A 4 KiB buffer: 500 puts make several batches, each over both regions (split at `m`).
    let mut m = basalt_embedded::BufferedMutator::new(
        remote.clone(),
        TableName::parse("t").unwrap(),
        basalt_embedded::BufferedMutatorParams {
            write_buffer_size: 4096,
        },
    )
    .unwrap();
    for i in 0..500 {
        let row = format!("{}{i:03}", if i % 2 == 0 { "a" } else { "x" });
        m.mutate(Put::new(row).add_column("f", "q", format!("v{i}")))
            .unwrap();
    }
    m.mutate(Put::new("b").add_column("nope", "q", "v"))
        .unwrap();
    m.mutate(Delete::new("a000")).unwrap();
    let e = m.flush().unwrap_err();
    assert!(e.to_string().contains("row b"), "{e}");
    let failures = m.take_failures();
    assert_eq!(failures.len(), 1);
    assert_eq!(
        failures[0].1.kind(),
        ErrorKind::NotFound,
        "{}",
        failures[0].1
    );
    m.close().unwrap();
    let t = remote.table("t").unwrap();
    assert_eq!(t.scan(&Scan::new()).unwrap().len(), 499);
    assert_eq!(
        t.get(&Get::new("x499")).unwrap().value(b"f", b"q").unwrap(),
        &b"v499"[..]
    );
    server.shutdown();
}

/// Rows whose bytes sort around `,` in a table split at them: a client that looks each one's
/// region up afresh (a new connection each time) reaches the right region.
#[test]
fn binary_row_keys_find_their_regions() {
    let every_byte: Vec<u8> = (0..=255u8).collect();
    let keys: Vec<Bytes> = vec![
        Bytes::from_static(b"\x00"),
        Bytes::from_static(b"\x00,\xff"),
        Bytes::from_static(b","),
        Bytes::from_static(b"a,b,c"),
        Bytes::from(every_byte),
        Bytes::from_static(b"\xff\xff"),
    ];
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("bin")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin().create_table_with_splits(desc, &keys).unwrap();
    // A table whose name sorts between `bin` and `bin,...` in byte order.
    let other = TableDescriptor::named("bin-2")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin().create_table(other).unwrap();
    let server = server(&conn);
    for key in &keys {
        let remote =
            RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
        remote
            .table("bin")
            .unwrap()
            .put(&Put::new(key.clone()).add_column("f", "q", key.clone()))
            .unwrap();
    }
    for key in &keys {
        let remote =
            RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
        let got = remote
            .table("bin")
            .unwrap()
            .get(&Get::new(key.clone()))
            .unwrap();
        assert_eq!(got.cells.len(), 1, "{key:?}");
        assert_eq!(got.cells[0].value(), &key[..]);
    }
    // Each row landed in the region that starts at it.
    let embedded = conn.table("bin").unwrap();
    for (region, key) in conn
        .admin()
        .regions(embedded.name())
        .unwrap()
        .iter()
        .skip(1)
        .zip({
            let mut sorted = keys.clone();
            sorted.sort();
            sorted
        })
    {
        assert_eq!(region.start_key, key);
    }
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let all = remote.table("bin").unwrap().scan(&Scan::new()).unwrap();
    assert_eq!(all.len(), keys.len());
    server.shutdown();
}
