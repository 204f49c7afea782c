//! The model test: random operations (puts, deletes, gets, scans, clock moves, flushes to
//! store files, minor and major compactions, close and reopen, splits, merges, disable and
//! enable; splits at a given row or at each region's split point, as automatic splits
//! choose it; increments, appends and check-and-puts) on a table pre-split at random rows, against the engine and against a
//! brute-force oracle (`support/model.rs`);
//! they must agree. `PROPTEST_CASES` sets the number of cases (default
//! 2000). Disagreements it finds are kept as named tests in `model_regressions.rs`.

mod support;

use basalt_embedded::{CellType, KeepDeletedCells};
use proptest::prelude::*;
use proptest::test_runner::Config;

use support::model::filter::ModelFilter;
use support::model::{ColSpec, FamilySpec, Op, Row, ScanSpec, run};

fn row() -> impl Strategy<Value = Row> {
    prop::sample::select(vec![
        b"a".to_vec(),
        b"ab".to_vec(),
        b"b".to_vec(),
        b"c".to_vec(),
        b"\x00".to_vec(),
        b"\xff".to_vec(),
    ])
}

fn scan_bound() -> impl Strategy<Value = Row> {
    prop_oneof![2 => Just(Vec::new()), 3 => row()]
}

fn qualifier() -> impl Strategy<Value = Row> {
    prop::sample::select(vec![
        b"".to_vec(),
        b"a".to_vec(),
        b"b".to_vec(),
        b"\x00".to_vec(),
    ])
}

/// Explicit timestamps straddle the clock's start (20), so LATEST and explicit versions mix.
fn ts() -> impl Strategy<Value = i64> {
    0i64..40
}

fn family() -> impl Strategy<Value = usize> {
    0usize..2
}

fn family_spec() -> impl Strategy<Value = FamilySpec> {
    (
        1u32..=4,
        0u32..=2,
        prop_oneof![3 => Just(None), 1 => (1u32..=3).prop_map(Some)],
        prop::sample::select(vec![
            KeepDeletedCells::False,
            KeepDeletedCells::True,
            KeepDeletedCells::Ttl,
        ]),
        any::<bool>(),
    )
        .prop_map(|(max_versions, min, ttl_seconds, kdc, nvb)| FamilySpec {
            max_versions,
            min_versions: min.min(max_versions),
            ttl_seconds,
            // NEW_VERSION_BEHAVIOR goes only without KEEP_DELETED_CELLS.
            nvb: nvb && kdc == KeepDeletedCells::False,
            kdc,
        })
}

fn col_spec() -> impl Strategy<Value = ColSpec> {
    prop_oneof![
        2 => Just(Vec::new()),
        1 => prop::collection::btree_map(
            family(),
            prop_oneof![Just(None), prop::collection::vec(qualifier(), 1..3).prop_map(Some)],
            1..=2,
        )
        .prop_map(|m| m.into_iter().collect()),
    ]
}

fn time_range() -> impl Strategy<Value = Option<(i64, i64)>> {
    prop_oneof![
        3 => Just(None),
        1 => (ts(), 0i64..30).prop_map(|(a, len)| Some((a, a + len))),
        1 => ts().prop_map(|t| Some((t, t + 1))),
    ]
}

fn versions() -> impl Strategy<Value = u32> {
    prop_oneof![1u32..=4, Just(u32::MAX)]
}

fn put() -> impl Strategy<Value = Op> {
    (
        row(),
        prop::option::of(ts()),
        prop_oneof![4 => Just(None), 1 => (1u64..2_000).prop_map(Some)],
        prop::collection::vec(
            (
                family(),
                qualifier(),
                prop::option::weighted(0.5, ts()),
                0u8..20,
            ),
            1..4,
        ),
    )
        .prop_map(|(row, ts, ttl_ms, cells)| Op::Put {
            row,
            ts,
            ttl_ms,
            cells: cells
                .into_iter()
                .map(|(f, q, t, v)| (f, q, t, format!("v{v}").into_bytes()))
                .collect(),
        })
}

fn delete() -> impl Strategy<Value = Op> {
    let kind = prop::sample::select(vec![
        CellType::Delete,
        CellType::DeleteColumn,
        CellType::DeleteFamily,
        CellType::DeleteFamilyVersion,
    ]);
    (
        row(),
        prop::option::weighted(0.3, ts()),
        prop_oneof![
            1 => Just(Vec::new()),
            4 => prop::collection::vec(
                (family(), qualifier(), prop::option::of(ts()), kind),
                1..3,
            ),
        ],
    )
        .prop_map(|(row, ts, entries)| {
            let entries = entries
                .into_iter()
                .map(|(f, q, t, k)| match k {
                    // Family markers have no qualifier; a family-version marker needs a time.
                    CellType::DeleteFamily => (f, Vec::new(), t, k),
                    CellType::DeleteFamilyVersion => (f, Vec::new(), t.or(ts).or(Some(0)), k),
                    _ => (f, q, t, k),
                })
                .collect();
            Op::Delete { row, ts, entries }
        })
}

fn get() -> impl Strategy<Value = Op> {
    (row(), col_spec(), time_range(), versions()).prop_map(|(row, cols, time_range, versions)| {
        Op::Get {
            row,
            cols,
            time_range,
            versions,
        }
    })
}

fn scan() -> impl Strategy<Value = Op> {
    (
        (
            scan_bound(),
            any::<bool>(),
            scan_bound(),
            any::<bool>(),
            any::<bool>(),
        ),
        (col_spec(), time_range(), versions()),
        (
            prop::option::of(1usize..4),
            prop::option::of(1usize..4),
            prop::bool::weighted(0.25),
            1usize..4,
        ),
        prop::option::weighted(0.5, model_filter()),
    )
        .prop_map(
            |(
                (start, include_start, stop, include_stop, reversed),
                (cols, time_range, versions),
                (limit, batch, raw, caching),
                filter,
            )| {
                // Raw scans go without filters here; whole-row filters cannot batch.
                let filter = filter.filter(|_| !raw);
                let batch = batch.filter(|_| !filter.as_ref().is_some_and(|f| f.whole_rows()));
                Op::Scan(ScanSpec {
                    start,
                    include_start,
                    stop,
                    include_stop,
                    reversed,
                    cols,
                    time_range,
                    versions,
                    limit,
                    batch,
                    raw,
                    caching,
                    filter,
                })
            },
        )
}

fn model_filter() -> impl Strategy<Value = ModelFilter> {
    use basalt_embedded::CompareOperator as C;
    let op = prop::sample::select(vec![
        C::Less,
        C::LessOrEqual,
        C::Equal,
        C::NotEqual,
        C::GreaterOrEqual,
        C::Greater,
    ]);
    let value = (0u8..20).prop_map(|v| format!("v{v}").into_bytes());
    prop_oneof![
        (op.clone(), value.clone()).prop_map(|(o, v)| ModelFilter::Value(o, v)),
        (op.clone(), qualifier()).prop_map(|(o, q)| ModelFilter::Qualifier(o, q)),
        (op.clone(), row()).prop_map(|(o, r)| ModelFilter::Row(o, r)),
        row().prop_map(ModelFilter::Prefix),
        qualifier().prop_map(ModelFilter::ColumnPrefix),
        Just(ModelFilter::KeyOnly),
        Just(ModelFilter::FirstKeyOnly),
        (
            family(),
            qualifier(),
            op.clone(),
            value.clone(),
            any::<bool>()
        )
            .prop_map(|(family, qualifier, op, value, if_missing)| {
                ModelFilter::SingleColumnValue {
                    family,
                    qualifier,
                    op,
                    value,
                    if_missing,
                }
            }),
        (op.clone(), value.clone()).prop_map(|(o, v)| ModelFilter::SkipValue(o, v)),
        (op.clone(), value.clone(), qualifier())
            .prop_map(|(o, v, q)| ModelFilter::ValueAndColumnPrefix(o, v, q)),
        (op, value, qualifier()).prop_map(|(o, v, q)| ModelFilter::ValueOrQualifier(o, v, q)),
    ]
}

fn increment() -> impl Strategy<Value = Op> {
    (row(), prop::collection::vec((family(), -3i64..4), 1..3))
        .prop_map(|(row, cols)| Op::Increment { row, cols })
}

fn append() -> impl Strategy<Value = Op> {
    (
        row(),
        prop::collection::vec((family(), qualifier(), 0u8..10), 1..3),
    )
        .prop_map(|(row, cols)| Op::Append {
            row,
            cols: cols
                .into_iter()
                .map(|(f, q, v)| (f, q, format!("+{v}").into_bytes()))
                .collect(),
        })
}

fn check_and_put() -> impl Strategy<Value = Op> {
    use basalt_embedded::CompareOperator as C;
    (
        row(),
        (family(), qualifier()),
        prop::sample::select(vec![
            C::Less,
            C::LessOrEqual,
            C::Equal,
            C::NotEqual,
            C::GreaterOrEqual,
            C::Greater,
        ]),
        prop_oneof![
            Just(Vec::new()),
            (0u8..20).prop_map(|v| format!("v{v}").into_bytes())
        ],
        (family(), qualifier(), 0u8..100),
    )
        .prop_map(|(row, check, op, expected, (f, q, v))| Op::CheckAndPut {
            row,
            check,
            op,
            expected,
            put: (f, q, format!("c{v}").into_bytes()),
        })
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => put(),
        3 => delete(),
        3 => get(),
        3 => scan(),
        1 => prop::sample::select(vec![1i64, 2, 7, 600, 1_500]).prop_map(Op::Advance),
        1 => Just(Op::Flush),
        1 => Just(Op::Reopen),
        1 => Just(Op::Compact),
        1 => Just(Op::MajorCompact),
        1 => prop::option::weighted(0.7, row()).prop_map(Op::Split),
        1 => (0usize..3).prop_map(Op::Merge),
        1 => Just(Op::DisableEnable),
        1 => increment(),
        1 => append(),
        1 => check_and_put(),
    ]
}

/// Operations that pile versions onto few columns, for the filter-focused run.
fn filter_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => put(),
        2 => delete(),
        4 => scan().prop_map(|op| match op {
            Op::Scan(mut s) if !s.raw => {
                if s.filter.is_none() {
                    s.filter = Some(ModelFilter::Value(
                        basalt_embedded::CompareOperator::Less,
                        b"v10".to_vec(),
                    ));
                    s.batch = None;
                }
                Op::Scan(s)
            }
            other => other,
        }),
        1 => Just(Op::Flush),
        1 => Just(Op::MajorCompact),
        1 => (0usize..2).prop_map(Op::Merge),
        1 => prop::option::weighted(0.7, row()).prop_map(Op::Split),
    ]
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    #![proptest_config(Config { cases: cases(), failure_persistence: None, ..Config::default() })]

    #[test]
    fn engine_agrees_with_oracle(
        families in prop::collection::vec(family_spec(), 2),
        splits in prop::collection::btree_set(row(), 0..3),
        ops in prop::collection::vec(op(), 1..40),
    ) {
        let splits: Vec<Row> = splits.into_iter().collect();
        if let Err(disagreement) = run(&families, &splits, &ops) {
            return Err(TestCaseError::fail(format!(
                "families {families:?}, splits {splits:?}\n{disagreement}"
            )));
        }
    }

    /// Filters on scans, over rows with many versions: the engine's return codes, hints and
    /// seeks against the oracle's plain predicates.
    #[test]
    fn filtered_scans_agree_with_oracle(
        families in prop::collection::vec(family_spec(), 2),
        splits in prop::collection::btree_set(row(), 0..2),
        ops in prop::collection::vec(filter_op(), 1..40),
    ) {
        let splits: Vec<Row> = splits.into_iter().collect();
        if let Err(disagreement) = run(&families, &splits, &ops) {
            return Err(TestCaseError::fail(format!(
                "families {families:?}, splits {splits:?}\n{disagreement}"
            )));
        }
    }
}
