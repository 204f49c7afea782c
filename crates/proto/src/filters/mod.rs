//! Filters and comparators as native clients send them (a Java class name and that class's
//! serialized protobuf) turned into Basalt's [`FilterSpec`] and [`Comparator`], and back
//! (`encode`, what Basalt's remote client sends).

use basalt_common::Bytes;
use basalt_common::filter::{BitOp, Comparator, FilterSpec, RowRange};
use basalt_common::ops::CompareOperator;
use prost::Message;

use crate::pb::{self, CompareType};

mod encode;

pub use encode::{comparator_pb, compare_type, filter_pb};

/// The class's simple name: `org.apache.hadoop.hbase.filter.PrefixFilter` -> `PrefixFilter`.
fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn decode<M: Message + Default>(what: &str, bytes: Option<&[u8]>) -> Result<M, String> {
    M::decode(bytes.unwrap_or_default()).map_err(|e| format!("{what} does not decode: {e}"))
}

/// HBase's CompareType as Basalt's operator.
pub fn op(t: CompareType) -> CompareOperator {
    match t {
        CompareType::Less => CompareOperator::Less,
        CompareType::LessOrEqual => CompareOperator::LessOrEqual,
        CompareType::Equal => CompareOperator::Equal,
        CompareType::NotEqual => CompareOperator::NotEqual,
        CompareType::GreaterOrEqual => CompareOperator::GreaterOrEqual,
        CompareType::Greater => CompareOperator::Greater,
        CompareType::NoOp => CompareOperator::NoOp,
    }
}

fn bytes(v: Option<&Vec<u8>>) -> Bytes {
    v.map_or_else(Bytes::new, |v| Bytes::copy_from_slice(v))
}

/// A comparator from its protobuf form.
pub fn comparator(c: &pb::Comparator) -> Result<Comparator, String> {
    let data = c.serialized_comparator.as_deref();
    Ok(match simple(&c.name) {
        "BinaryComparator" => {
            let m: pb::BinaryComparator = decode(&c.name, data)?;
            Comparator::Binary(bytes(m.comparable.value.as_ref()))
        }
        "BinaryPrefixComparator" => {
            let m: pb::BinaryPrefixComparator = decode(&c.name, data)?;
            Comparator::BinaryPrefix(bytes(m.comparable.value.as_ref()))
        }
        "LongComparator" => {
            let m: pb::LongComparator = decode(&c.name, data)?;
            let v = m.comparable.value.unwrap_or_default();
            let v: [u8; 8] = v
                .try_into()
                .map_err(|_| "LongComparator needs an 8-byte value".to_owned())?;
            Comparator::Long(i64::from_be_bytes(v))
        }
        "BitComparator" => {
            let m: pb::BitComparator = decode(&c.name, data)?;
            let op = match m.bitwise_op() {
                pb::bit_comparator::BitwiseOp::And => BitOp::And,
                pb::bit_comparator::BitwiseOp::Or => BitOp::Or,
                pb::bit_comparator::BitwiseOp::Xor => BitOp::Xor,
            };
            Comparator::Bit {
                value: bytes(m.comparable.value.as_ref()),
                op,
            }
        }
        "NullComparator" => Comparator::Null,
        "RegexStringComparator" => {
            let m: pb::RegexStringComparator = decode(&c.name, data)?;
            // Java's CASE_INSENSITIVE flag is 2; DOTALL (32) is Basalt's default anyway.
            let pattern = if m.pattern_flags & 2 != 0 {
                format!("(?i){}", m.pattern)
            } else {
                m.pattern
            };
            Comparator::RegexString(pattern)
        }
        "SubstringComparator" => {
            let m: pb::SubstringComparator = decode(&c.name, data)?;
            Comparator::Substring(m.substr)
        }
        "BinaryComponentComparator" => {
            let m: pb::BinaryComponentComparator = decode(&c.name, data)?;
            Comparator::BinaryComponent {
                offset: m.offset,
                value: Bytes::from(m.value),
            }
        }
        "BigDecimalComparator" => {
            let m: pb::BigDecimalComparator = decode(&c.name, data)?;
            Comparator::BigDecimal(bytes(m.comparable.value.as_ref()))
        }
        other => return Err(format!("comparator {other} is not supported")),
    })
}

fn compare(c: &pb::CompareFilter) -> Result<(CompareOperator, Comparator), String> {
    let cmp = c
        .comparator
        .as_ref()
        .ok_or_else(|| "a compare filter without a comparator".to_owned())?;
    Ok((op(c.compare_op()), comparator(cmp)?))
}

/// A fuzzy mask as HBase sends it: raw (0 fixed, 1 any) or already processed by the client's
/// FuzzyRowFilter (-1 fixed, 0 or 2 any), told apart as HBase does.
fn fuzzy_mask(mask: &[u8]) -> Vec<u8> {
    let processed = mask.iter().all(|&b| b == 0xff || b == 0 || b == 2);
    mask.iter()
        .map(|&b| match (processed, b) {
            (true, 0xff) | (false, 0) => 0,
            _ => 1,
        })
        .collect()
}

fn single_column_value(
    m: &pb::SingleColumnValueFilter,
    exclude: bool,
) -> Result<FilterSpec, String> {
    Ok(FilterSpec::SingleColumnValue {
        family: bytes(m.column_family.as_ref()),
        qualifier: bytes(m.column_qualifier.as_ref()),
        op: op(m.compare_op()),
        comparator: comparator(&m.comparator)?,
        filter_if_missing: m.filter_if_missing.unwrap_or(false),
        latest_version_only: m.latest_version_only.unwrap_or(true),
        exclude,
    })
}

/// A filter from the bytes of its protobuf form (a `Filter` message: class name and that
/// class's serialized filter), as Thrift2's `filterBytes` carries it.
pub fn filter_from_bytes(bytes: &[u8]) -> Result<FilterSpec, String> {
    filter(&decode::<pb::Filter>("the filter", Some(bytes))?)
}

/// A filter from its protobuf form.
pub fn filter(f: &pb::Filter) -> Result<FilterSpec, String> {
    let data = f.serialized_filter.as_deref();
    let name = f.name.as_str();
    Ok(match simple(name) {
        "ColumnCountGetFilter" => {
            let m: pb::ColumnCountGetFilter = decode(name, data)?;
            FilterSpec::ColumnCountGet(u32::try_from(m.limit.max(0)).unwrap_or(0))
        }
        "ColumnPaginationFilter" => {
            let m: pb::ColumnPaginationFilter = decode(name, data)?;
            FilterSpec::ColumnPagination {
                limit: u32::try_from(m.limit.max(0)).unwrap_or(0),
                offset: u32::try_from(m.offset.unwrap_or(0).max(0)).unwrap_or(0),
                column_offset: m.column_offset.map(Bytes::from),
            }
        }
        "ColumnPrefixFilter" => {
            let m: pb::ColumnPrefixFilter = decode(name, data)?;
            FilterSpec::ColumnPrefix(Bytes::from(m.prefix))
        }
        "ColumnRangeFilter" => {
            let m: pb::ColumnRangeFilter = decode(name, data)?;
            FilterSpec::ColumnRange {
                min: bytes(m.min_column.as_ref()),
                min_inclusive: m.min_column_inclusive.unwrap_or(true),
                max: bytes(m.max_column.as_ref()),
                max_inclusive: m.max_column_inclusive.unwrap_or(false),
            }
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            let m: pb::CompareFilterHolder = decode(name, data)?;
            let (op, c) = compare(&m.compare_filter)?;
            match simple(name) {
                "RowFilter" => FilterSpec::Row(op, c),
                "FamilyFilter" => FilterSpec::Family(op, c),
                "QualifierFilter" => FilterSpec::Qualifier(op, c),
                _ => FilterSpec::Value(op, c),
            }
        }
        "DependentColumnFilter" => {
            let m: pb::DependentColumnFilter = decode(name, data)?;
            let compare = match &m.compare_filter.comparator {
                Some(_) => Some(compare(&m.compare_filter)?),
                None => None,
            };
            FilterSpec::DependentColumn {
                family: bytes(m.column_family.as_ref()),
                qualifier: bytes(m.column_qualifier.as_ref()),
                drop_dependent: m.drop_dependent_column.unwrap_or(false),
                compare,
            }
        }
        "FilterList" => {
            let m: pb::FilterList = decode(name, data)?;
            FilterSpec::List {
                must_pass_all: m.operator() == pb::filter_list::Operator::MustPassAll,
                filters: m.filters.iter().map(filter).collect::<Result<_, _>>()?,
            }
        }
        "FilterWrapper" => {
            let m: pb::FilterHolder = decode(name, data)?;
            filter(&m.filter)?
        }
        "SkipFilter" => {
            let m: pb::FilterHolder = decode(name, data)?;
            FilterSpec::Skip(Box::new(filter(&m.filter)?))
        }
        "WhileMatchFilter" => {
            let m: pb::FilterHolder = decode(name, data)?;
            FilterSpec::WhileMatch(Box::new(filter(&m.filter)?))
        }
        _ => return row_filter(f),
    })
}

/// [`filter`] of the filters on rows, keys and single columns (the others are `filter`'s).
fn row_filter(f: &pb::Filter) -> Result<FilterSpec, String> {
    let data = f.serialized_filter.as_deref();
    let name = f.name.as_str();
    Ok(match simple(name) {
        "FirstKeyOnlyFilter" => FilterSpec::FirstKeyOnly,
        "FuzzyRowFilter" => {
            let m: pb::FuzzyRowFilter = decode(name, data)?;
            FilterSpec::FuzzyRow(
                m.fuzzy_keys_data
                    .iter()
                    .map(|p| {
                        (
                            Bytes::copy_from_slice(&p.first),
                            Bytes::from(fuzzy_mask(&p.second)),
                        )
                    })
                    .collect(),
            )
        }
        "InclusiveStopFilter" => {
            let m: pb::InclusiveStopFilter = decode(name, data)?;
            FilterSpec::InclusiveStop(bytes(m.stop_row_key.as_ref()))
        }
        "KeyOnlyFilter" => {
            let m: pb::KeyOnlyFilter = decode(name, data)?;
            FilterSpec::KeyOnly {
                len_as_value: m.len_as_val,
            }
        }
        "MultipleColumnPrefixFilter" => {
            let m: pb::MultipleColumnPrefixFilter = decode(name, data)?;
            FilterSpec::MultipleColumnPrefix(
                m.sorted_prefixes.into_iter().map(Bytes::from).collect(),
            )
        }
        "PageFilter" => {
            let m: pb::PageFilter = decode(name, data)?;
            FilterSpec::Page(u64::try_from(m.page_size.max(0)).unwrap_or(0))
        }
        "PrefixFilter" => {
            let m: pb::PrefixFilter = decode(name, data)?;
            FilterSpec::Prefix(bytes(m.prefix.as_ref()))
        }
        "RandomRowFilter" => {
            let m: pb::RandomRowFilter = decode(name, data)?;
            FilterSpec::RandomRow(m.chance)
        }
        "SingleColumnValueFilter" => {
            let m: pb::SingleColumnValueFilter = decode(name, data)?;
            single_column_value(&m, false)?
        }
        "SingleColumnValueExcludeFilter" => {
            let m: pb::SingleColumnValueExcludeFilter = decode(name, data)?;
            single_column_value(&m.single_column_value_filter, true)?
        }
        "TimestampsFilter" => {
            let m: pb::TimestampsFilter = decode(name, data)?;
            FilterSpec::Timestamps(m.timestamps)
        }
        "MultiRowRangeFilter" => {
            let m: pb::MultiRowRangeFilter = decode(name, data)?;
            FilterSpec::MultiRowRange(
                m.row_range_list
                    .iter()
                    .map(|r| RowRange {
                        start: bytes(r.start_row.as_ref()),
                        start_inclusive: r.start_row_inclusive.unwrap_or(true),
                        stop: bytes(r.stop_row.as_ref()),
                        stop_inclusive: r.stop_row_inclusive.unwrap_or(false),
                    })
                    .collect(),
            )
        }
        "ColumnValueFilter" => {
            let m: pb::ColumnValueFilter = decode(name, data)?;
            let (op, comparator) = (op(m.compare_op()), comparator(&m.comparator)?);
            FilterSpec::ColumnValue {
                family: Bytes::from(m.family),
                qualifier: Bytes::from(m.qualifier),
                op,
                comparator,
            }
        }
        other => return Err(format!("filter {other} is not supported")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(name: &str, m: &impl Message) -> pb::Filter {
        pb::Filter {
            name: format!("org.apache.hadoop.hbase.filter.{name}"),
            serialized_filter: Some(m.encode_to_vec()),
        }
    }

    fn binary(v: &[u8]) -> pb::Comparator {
        pb::Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(
                pb::BinaryComparator {
                    comparable: pb::ByteArrayComparable {
                        value: Some(v.to_vec()),
                    },
                }
                .encode_to_vec(),
            ),
        }
    }

    #[test]
    fn nested_filters_decode() {
        let value = wrap(
            "ValueFilter",
            &pb::CompareFilterHolder {
                compare_filter: pb::CompareFilter {
                    compare_op: CompareType::GreaterOrEqual as i32,
                    comparator: Some(binary(b"m")),
                },
            },
        );
        let prefix = wrap(
            "PrefixFilter",
            &pb::PrefixFilter {
                prefix: Some(b"row".to_vec()),
            },
        );
        let list = wrap(
            "FilterList",
            &pb::FilterList {
                operator: pb::filter_list::Operator::MustPassOne as i32,
                filters: vec![
                    value,
                    wrap("SkipFilter", &pb::FilterHolder { filter: prefix }),
                ],
            },
        );
        assert_eq!(
            filter(&list).unwrap(),
            FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::Value(
                        CompareOperator::GreaterOrEqual,
                        Comparator::Binary(Bytes::from_static(b"m"))
                    ),
                    FilterSpec::Skip(Box::new(FilterSpec::Prefix(Bytes::from_static(b"row")))),
                ],
            }
        );
        let unknown = pb::Filter {
            name: "com.example.MyFilter".into(),
            serialized_filter: None,
        };
        assert!(filter(&unknown).unwrap_err().contains("MyFilter"));
    }

    #[test]
    fn every_filter_round_trips_through_its_protobuf_form() {
        let b = |s: &str| Bytes::copy_from_slice(s.as_bytes());
        let comparators = [
            Comparator::Binary(b("v")),
            Comparator::BinaryPrefix(b("pre")),
            Comparator::Long(-42),
            Comparator::Bit {
                value: b("\x0f"),
                op: BitOp::Xor,
            },
            Comparator::Null,
            Comparator::RegexString("a.*b".into()),
            Comparator::RegexString("(?i)abc".into()),
            Comparator::Substring("sub".into()),
            Comparator::BinaryComponent {
                offset: 3,
                value: b("xy"),
            },
        ];
        let mut specs: Vec<FilterSpec> = comparators
            .iter()
            .flat_map(|c| {
                [
                    FilterSpec::Row(CompareOperator::Less, c.clone()),
                    FilterSpec::Family(CompareOperator::Equal, c.clone()),
                    FilterSpec::Qualifier(CompareOperator::NotEqual, c.clone()),
                    FilterSpec::Value(CompareOperator::GreaterOrEqual, c.clone()),
                ]
            })
            .collect();
        specs.extend([
            FilterSpec::KeyOnly { len_as_value: true },
            FilterSpec::FirstKeyOnly,
            FilterSpec::Prefix(b("row")),
            FilterSpec::ColumnPrefix(b("col")),
            FilterSpec::MultipleColumnPrefix(vec![b("a"), b("b")]),
            FilterSpec::ColumnCountGet(4),
            FilterSpec::Page(10),
            FilterSpec::ColumnPagination {
                limit: 2,
                offset: 3,
                column_offset: None,
            },
            FilterSpec::ColumnPagination {
                limit: 2,
                offset: 0,
                column_offset: Some(b("q")),
            },
            FilterSpec::InclusiveStop(b("stop")),
            FilterSpec::Timestamps(vec![1, 5, 9]),
            FilterSpec::ColumnRange {
                min: b("a"),
                min_inclusive: false,
                max: b("m"),
                max_inclusive: true,
            },
            FilterSpec::SingleColumnValue {
                family: b("f"),
                qualifier: b("q"),
                op: CompareOperator::Greater,
                comparator: Comparator::Long(7),
                filter_if_missing: true,
                latest_version_only: false,
                exclude: false,
            },
            FilterSpec::SingleColumnValue {
                family: b("f"),
                qualifier: b("q"),
                op: CompareOperator::Equal,
                comparator: Comparator::Binary(b("x")),
                filter_if_missing: false,
                latest_version_only: true,
                exclude: true,
            },
            FilterSpec::DependentColumn {
                family: b("f"),
                qualifier: b("q"),
                drop_dependent: true,
                compare: None,
            },
            FilterSpec::DependentColumn {
                family: b("f"),
                qualifier: b("q"),
                drop_dependent: false,
                compare: Some((CompareOperator::Equal, Comparator::Binary(b("x")))),
            },
            FilterSpec::ColumnValue {
                family: b("f"),
                qualifier: b("q"),
                op: CompareOperator::LessOrEqual,
                comparator: Comparator::Substring("s".into()),
            },
            FilterSpec::Skip(Box::new(FilterSpec::Prefix(b("p")))),
            FilterSpec::WhileMatch(Box::new(FilterSpec::Page(3))),
            FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::FirstKeyOnly,
                    FilterSpec::List {
                        must_pass_all: true,
                        filters: vec![FilterSpec::Prefix(b("a")), FilterSpec::Page(1)],
                    },
                ],
            },
            FilterSpec::FuzzyRow(vec![
                (b("ab"), Bytes::from_static(&[0, 1])),
                (b("cd"), Bytes::from_static(&[0, 0])),
                (b("ef"), Bytes::from_static(&[1, 1])),
            ]),
            FilterSpec::MultiRowRange(vec![RowRange {
                start: b("a"),
                start_inclusive: true,
                stop: b("c"),
                stop_inclusive: false,
            }]),
            FilterSpec::RandomRow(0.25),
        ]);
        for spec in &specs {
            let wire = filter_pb(spec);
            assert!(wire.name.starts_with("org.apache.hadoop.hbase.filter."));
            assert_eq!(&filter(&wire).unwrap(), spec, "{}", wire.name);
        }
    }

    #[test]
    fn fuzzy_masks_in_both_forms() {
        assert_eq!(fuzzy_mask(&[0, 1, 0]), [0, 1, 0]);
        assert_eq!(fuzzy_mask(&[0xff, 0, 0xff]), [0, 1, 0]);
        assert_eq!(fuzzy_mask(&[0xff, 2]), [0, 1]);
    }
}
