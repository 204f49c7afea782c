//! One behaviour suite run three times: on an embedded table, and on the same table of a
//! server reached through the blocking `RemoteTable` and the async `AsyncTable` (native RPC).
//! Each scenario writes a transcript of what it read; the transcripts must be equal, and each
//! scenario checks HBase's expected answers as it goes. Then what only the remote sides have:
//! regions that move under a cached location, and a server that goes away.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{
    AsyncConnection, AsyncTable, RemoteConfig, RemoteConnection, RemoteTable,
};
use basalt_embedded::{
    Append, BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, CheckAndMutateResult,
    ColumnFamilyDescriptor, CompareOperator, Condition, Connection, Delete, ErrorKind, Get,
    Increment, NamespaceDescriptor, Put, Result, RowMutations, RowResult, Scan, Table,
    TableDescriptor, TableName,
};
use support::serve as server;

mod support;

/// The table operations both modes offer, as the suite uses them.
trait Ops {
    fn put(&self, p: &Put) -> Result<()>;
    fn delete(&self, d: &Delete) -> Result<()>;
    fn get(&self, g: &Get) -> Result<RowResult>;
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>>;
    fn increment(&self, i: &Increment) -> Result<RowResult>;
    fn append(&self, a: &Append) -> Result<RowResult>;
    fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>>;
    fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult>;
    fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>>;
}

/// The table calls whose embedded and remote forms have the same names and signatures.
macro_rules! same_table_calls {
    ($t:ty) => {
        fn put(&self, p: &Put) -> Result<()> {
            <$t>::put(self, p)
        }
        fn delete(&self, d: &Delete) -> Result<()> {
            <$t>::delete(self, d)
        }
        fn get(&self, g: &Get) -> Result<RowResult> {
            <$t>::get(self, g)
        }
        fn increment(&self, i: &Increment) -> Result<RowResult> {
            <$t>::increment(self, i)
        }
        fn append(&self, a: &Append) -> Result<RowResult> {
            <$t>::append(self, a)
        }
        fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>> {
            <$t>::mutate_row(self, m)
        }
        fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult> {
            <$t>::check_and_mutate(self, c)
        }
        fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
            <$t>::batch(self, ops)
        }
    };
}

impl Ops for Table {
    same_table_calls!(Table);
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        Table::scan(self, s)?.collect()
    }
}

impl Ops for RemoteTable<'_> {
    same_table_calls!(RemoteTable<'_>);
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        RemoteTable::scan(self, s)
    }
}

/// The async client, each call run to its end on a runtime of the test's own.
struct Async {
    runtime: std::rc::Rc<tokio::runtime::Runtime>,
    conn: AsyncConnection,
}

impl Async {
    fn connect(addr: std::net::SocketAddr, config: RemoteConfig) -> Result<Async> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let conn = runtime.block_on(AsyncConnection::connect(addr, config))?;
        Ok(Async {
            runtime: std::rc::Rc::new(runtime),
            conn,
        })
    }

    fn on(&self, table: &str) -> AsyncOps {
        AsyncOps {
            runtime: self.runtime.clone(),
            table: self.conn.table(table).unwrap(),
        }
    }
}

struct AsyncOps {
    runtime: std::rc::Rc<tokio::runtime::Runtime>,
    table: AsyncTable,
}

impl Ops for AsyncOps {
    fn put(&self, p: &Put) -> Result<()> {
        self.runtime.block_on(self.table.put(p))
    }
    fn delete(&self, d: &Delete) -> Result<()> {
        self.runtime.block_on(self.table.delete(d))
    }
    fn get(&self, g: &Get) -> Result<RowResult> {
        self.runtime.block_on(self.table.get(g))
    }
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        self.runtime.block_on(self.table.scan(s))
    }
    fn increment(&self, i: &Increment) -> Result<RowResult> {
        self.runtime.block_on(self.table.increment(i))
    }
    fn append(&self, a: &Append) -> Result<RowResult> {
        self.runtime.block_on(self.table.append(a))
    }
    fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>> {
        self.runtime.block_on(self.table.mutate_row(m))
    }
    fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.runtime.block_on(self.table.check_and_mutate(c))
    }
    fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        self.runtime.block_on(self.table.batch(ops))
    }
}

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

/// A row as `row: family:qualifier@ts=value ...`.
fn show(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect();
    format!("{}: {}", String::from_utf8_lossy(&r.row), cells.join(" "))
}

fn rows(ops: &dyn Ops, s: &Scan) -> Vec<String> {
    ops.scan(s).unwrap().iter().map(show).collect()
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

fn keys(start: &[u8], end: &[u8]) -> (String, String) {
    (
        String::from_utf8_lossy(start).into_owned(),
        String::from_utf8_lossy(end).into_owned(),
    )
}

/// The admin operations both modes offer, as the suite uses them.
trait AdminOps {
    fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()>;
    fn disable(&self, n: &TableName) -> Result<()>;
    fn enable(&self, n: &TableName) -> Result<()>;
    fn delete(&self, n: &TableName) -> Result<()>;
    fn truncate(&self, n: &TableName, preserve: bool) -> Result<()>;
    fn describe(&self, n: &TableName) -> Result<TableDescriptor>;
    fn exists(&self, n: &TableName) -> Result<bool>;
    fn list(&self) -> Result<Vec<TableName>>;
    fn enabled(&self, n: &TableName) -> Result<bool>;
    fn modify(&self, d: TableDescriptor) -> Result<()>;
    fn flush(&self, n: &TableName) -> Result<()>;
    fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()>;
    fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()>;
    fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()>;
    fn delete_ns(&self, ns: &str) -> Result<()>;
    fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor>;
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>>;
    /// (name, start, end) of each serving region.
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>>;
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()>;
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()>;
    fn major_compact(&self, n: &TableName) -> Result<()>;
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a>;
}

/// The admin calls whose embedded and remote forms have the same names and signatures.
macro_rules! same_admin_calls {
    () => {
        fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()> {
            self.admin().create_table_with_splits(d, splits)
        }
        fn disable(&self, n: &TableName) -> Result<()> {
            self.admin().disable_table(n)
        }
        fn enable(&self, n: &TableName) -> Result<()> {
            self.admin().enable_table(n)
        }
        fn delete(&self, n: &TableName) -> Result<()> {
            self.admin().delete_table(n)
        }
        fn truncate(&self, n: &TableName, preserve: bool) -> Result<()> {
            self.admin().truncate_table(n, preserve)
        }
        fn describe(&self, n: &TableName) -> Result<TableDescriptor> {
            self.admin().describe_table(n)
        }
        fn enabled(&self, n: &TableName) -> Result<bool> {
            self.admin().is_table_enabled(n)
        }
        fn modify(&self, d: TableDescriptor) -> Result<()> {
            self.admin().modify_table(d)
        }
        fn flush(&self, n: &TableName) -> Result<()> {
            self.admin().flush(n)
        }
        fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()> {
            self.admin().add_column_family(n, f)
        }
        fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()> {
            self.admin().delete_column_family(n, f)
        }
        fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()> {
            self.admin().create_namespace(ns)
        }
        fn delete_ns(&self, ns: &str) -> Result<()> {
            self.admin().delete_namespace(ns)
        }
        fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor> {
            self.admin().get_namespace_descriptor(ns)
        }
    };
}

impl AdminOps for Connection {
    same_admin_calls!();
    fn exists(&self, n: &TableName) -> Result<bool> {
        Ok(self.admin().table_exists(n))
    }
    fn list(&self) -> Result<Vec<TableName>> {
        Ok(self.admin().list_table_names())
    }
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>> {
        Ok(self.admin().list_namespace_descriptors())
    }
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .admin()
            .regions(n)?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start_key, &r.end_key);
                (r.name.to_vec(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.admin().split(n, Some(at))
    }
    fn merge(&self, _: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin().merge_regions(a, b).map(|_| ())
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.admin().major_compact(n)
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(Connection::table(self, n).unwrap())
    }
}

impl AdminOps for RemoteConnection {
    same_admin_calls!();
    fn exists(&self, n: &TableName) -> Result<bool> {
        self.admin().table_exists(n)
    }
    fn list(&self) -> Result<Vec<TableName>> {
        self.admin().list_table_names()
    }
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>> {
        self.admin().list_namespace_descriptors()
    }
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .admin()
            .regions(n)?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start, &r.end);
                (r.name.clone(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.admin().split(n, Some(at))
    }
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin().merge_regions(n, a, b)
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.admin().compact(n, true)
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(RemoteConnection::table(self, n).unwrap())
    }
}

impl AdminOps for Async {
    fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().create_table_with_splits(d, splits))
    }
    fn disable(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().disable_table(n))
    }
    fn enable(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().enable_table(n))
    }
    fn delete(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().delete_table(n))
    }
    fn truncate(&self, n: &TableName, preserve: bool) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().truncate_table(n, preserve))
    }
    fn describe(&self, n: &TableName) -> Result<TableDescriptor> {
        self.runtime.block_on(self.conn.admin().describe_table(n))
    }
    fn exists(&self, n: &TableName) -> Result<bool> {
        self.runtime.block_on(self.conn.admin().table_exists(n))
    }
    fn list(&self) -> Result<Vec<TableName>> {
        self.runtime.block_on(self.conn.admin().list_table_names())
    }
    fn enabled(&self, n: &TableName) -> Result<bool> {
        self.runtime.block_on(self.conn.admin().is_table_enabled(n))
    }
    fn modify(&self, d: TableDescriptor) -> Result<()> {
        self.runtime.block_on(self.conn.admin().modify_table(d))
    }
    fn flush(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().flush(n))
    }
    fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().add_column_family(n, f))
    }
    fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().delete_column_family(n, f))
    }
    fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().create_namespace(ns))
    }
    fn delete_ns(&self, ns: &str) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().delete_namespace(ns))
    }
    fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor> {
        self.runtime
            .block_on(self.conn.admin().get_namespace_descriptor(ns))
    }
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>> {
        self.runtime
            .block_on(self.conn.admin().list_namespace_descriptors())
    }
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .runtime
            .block_on(self.conn.admin().regions(n))?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start, &r.end);
                (r.name.clone(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.runtime.block_on(self.conn.admin().split(n, Some(at)))
    }
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().merge_regions(n, a, b))
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().compact(n, true))
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(self.on(n))
    }
}

fn administer(side: &dyn AdminOps, log: &mut Vec<String>) {
    let name = |s: &str| TableName::parse(s).unwrap();
    let desc = |s: &str| {
        let mut d = TableDescriptor::named(s)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f").with_max_versions(2));
        d.max_filesize = 1 << 30;
        d
    };
    side.create(desc("a"), &[Bytes::from_static(b"k")]).unwrap();
    side.create(desc("b"), &[]).unwrap();
    assert_eq!(side.list().unwrap(), [name("a"), name("b")]);
    assert!(side.exists(&name("a")).unwrap() && !side.exists(&name("zz")).unwrap());
    let described = side.describe(&name("a")).unwrap();
    assert_eq!(described.max_filesize, 1 << 30);
    assert_eq!(described.families()[0].max_versions, 2);
    log.push(format!("{described:?}"));
    let e = side.create(desc("a"), &[]).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    let e = side.describe(&name("zz")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");

    let t = side.table("a");
    for r in ["c", "q"] {
        t.put(&Put::new(r).add_column_at("f", "q", 1, r)).unwrap();
    }
    side.flush(&name("a")).unwrap();
    side.disable(&name("a")).unwrap();
    assert!(!side.enabled(&name("a")).unwrap());
    let e = t.put(&Put::new("x").add_column("f", "q", "v")).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.enable(&name("a")).unwrap();
    assert_eq!(rows(t.as_ref(), &Scan::new()).len(), 2);
    let e = side.truncate(&name("a"), true).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("a")).unwrap();
    side.truncate(&name("a"), true).unwrap();
    assert!(side.enabled(&name("a")).unwrap());
    let t = side.table("a");
    assert!(rows(t.as_ref(), &Scan::new()).is_empty());
    t.put(&Put::new("q").add_column_at("f", "q", 1, "again"))
        .unwrap();
    log.extend(rows(t.as_ref(), &Scan::new()));

    // Online schema change: a second family.
    let wider = side
        .describe(&name("a"))
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("g"));
    side.modify(wider).unwrap();
    let t = side.table("a");
    t.put(&Put::new("q").add_column_at("g", "n", 1, "new"))
        .unwrap();
    log.extend(rows(t.as_ref(), &Scan::new()));
    log.push(format!("{:?}", side.describe(&name("a")).unwrap()));

    // Splits, compactions and merges by hand: the rows stay.
    let bounds = |side: &dyn AdminOps| -> Vec<(String, String)> {
        side.region_list(&name("a"))
            .unwrap()
            .into_iter()
            .map(|(_, a, b)| (a, b))
            .collect()
    };
    side.split_at(&name("a"), b"t").unwrap();
    assert_eq!(
        bounds(side),
        [
            ("".into(), "k".into()),
            ("k".into(), "t".into()),
            ("t".into(), "".into())
        ]
    );
    // Daughters hold references to their parent's files until a compaction rewrites them.
    side.major_compact(&name("a")).unwrap();
    let regions = side.region_list(&name("a")).unwrap();
    side.merge(&name("a"), &regions[1].0, &regions[2].0)
        .unwrap();
    assert_eq!(
        bounds(side),
        [("".into(), "k".into()), ("k".into(), "".into())]
    );
    side.major_compact(&name("a")).unwrap();
    let t = side.table("a");
    log.extend(rows(t.as_ref(), &Scan::new()));

    // Families one at a time.
    side.add_family(
        &name("a"),
        ColumnFamilyDescriptor::new("h").with_max_versions(4),
    )
    .unwrap();
    side.delete_family(&name("a"), b"g").unwrap();
    let families: Vec<String> = side
        .describe(&name("a"))
        .unwrap()
        .families()
        .iter()
        .map(|f| format!("{}/{}", String::from_utf8_lossy(&f.name), f.max_versions))
        .collect();
    assert_eq!(families, ["f/2", "h/4"]);
    log.extend(families);

    // Namespaces: created with properties, listed, refused while they hold a table.
    side.create_ns(NamespaceDescriptor::new("ops").with_configuration("owner", "team"))
        .unwrap();
    let e = side.create_ns(NamespaceDescriptor::new("ops")).unwrap_err();
    log.push(format!("{:?} {e}", e.kind()));
    let got = side.get_ns("ops").unwrap();
    assert_eq!(
        got.configuration.get("owner").map(String::as_str),
        Some("team")
    );
    let listed: Vec<String> = side
        .list_ns()
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .collect();
    assert_eq!(listed, ["default", "hbase", "ops"]);
    side.create(desc("ops:t"), &[]).unwrap();
    let e = side.delete_ns("ops").unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("ops:t")).unwrap();
    side.delete(&name("ops:t")).unwrap();
    side.delete_ns("ops").unwrap();
    let e = side.get_ns("ops").unwrap_err();
    log.push(format!("{:?} {e}", e.kind()));

    let e = side.delete(&name("b")).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("b")).unwrap();
    side.delete(&name("b")).unwrap();
    assert_eq!(side.list().unwrap(), [name("a")]);
}

#[test]
fn administration_embedded_and_remote() {
    let embedded = Connection::in_memory();
    let mut local = Vec::new();
    administer(&embedded, &mut local);

    let served = Connection::in_memory();
    let server = server(&served);
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    administer(&remote, &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote disagree");

    let served = Connection::in_memory();
    let server = support::serve(&served);
    let remote = Async::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    administer(&remote, &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote async disagree");
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
