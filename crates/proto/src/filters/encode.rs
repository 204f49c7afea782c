//! Basalt's [`FilterSpec`] and [`Comparator`] in HBase's protobuf form, the inverse of the
//! decoding in the parent module: what Basalt's remote client sends.

use basalt_common::Bytes;
use basalt_common::filter::{BitOp, Comparator, FilterSpec, RowRange};
use basalt_common::ops::CompareOperator;
use prost::Message;

use crate::pb::{self, CompareType};

/// Basalt's operator as HBase's CompareType.
pub fn compare_type(o: CompareOperator) -> CompareType {
    match o {
        CompareOperator::Less => CompareType::Less,
        CompareOperator::LessOrEqual => CompareType::LessOrEqual,
        CompareOperator::Equal => CompareType::Equal,
        CompareOperator::NotEqual => CompareType::NotEqual,
        CompareOperator::GreaterOrEqual => CompareType::GreaterOrEqual,
        CompareOperator::Greater => CompareType::Greater,
        CompareOperator::NoOp => CompareType::NoOp,
    }
}

const FILTER_PACKAGE: &str = "org.apache.hadoop.hbase.filter";

fn comparable(v: &Bytes) -> pb::ByteArrayComparable {
    pb::ByteArrayComparable {
        value: Some(v.to_vec()),
    }
}

/// A comparator in the protobuf form HBase's clients send (the inverse of [`comparator`]).
pub fn comparator_pb(c: &Comparator) -> pb::Comparator {
    let (name, data) = match c {
        Comparator::Binary(v) => (
            "BinaryComparator",
            pb::BinaryComparator {
                comparable: comparable(v),
            }
            .encode_to_vec(),
        ),
        Comparator::BinaryPrefix(v) => (
            "BinaryPrefixComparator",
            pb::BinaryPrefixComparator {
                comparable: comparable(v),
            }
            .encode_to_vec(),
        ),
        Comparator::Long(n) => (
            "LongComparator",
            pb::LongComparator {
                comparable: comparable(&Bytes::copy_from_slice(&n.to_be_bytes())),
            }
            .encode_to_vec(),
        ),
        Comparator::Bit { value, op } => (
            "BitComparator",
            pb::BitComparator {
                comparable: comparable(value),
                bitwise_op: match op {
                    BitOp::And => pb::bit_comparator::BitwiseOp::And,
                    BitOp::Or => pb::bit_comparator::BitwiseOp::Or,
                    BitOp::Xor => pb::bit_comparator::BitwiseOp::Xor,
                } as i32,
            }
            .encode_to_vec(),
        ),
        Comparator::Null => ("NullComparator", Vec::new()),
        Comparator::RegexString(pattern) => {
            // Java's flags: DOTALL (32), as Basalt matches; CASE_INSENSITIVE (2) for `(?i)`.
            let (flags, pattern) = match pattern.strip_prefix("(?i)") {
                Some(rest) => (2 | 32, rest),
                None => (32, pattern.as_str()),
            };
            (
                "RegexStringComparator",
                pb::RegexStringComparator {
                    pattern: pattern.to_owned(),
                    pattern_flags: flags,
                    charset: "UTF-8".into(),
                    engine: None,
                }
                .encode_to_vec(),
            )
        }
        Comparator::Substring(sub) => (
            "SubstringComparator",
            pb::SubstringComparator {
                substr: sub.clone(),
            }
            .encode_to_vec(),
        ),
        Comparator::BigDecimal(v) => (
            "BigDecimalComparator",
            pb::BigDecimalComparator {
                comparable: pb::ByteArrayComparable {
                    value: Some(v.to_vec()),
                },
            }
            .encode_to_vec(),
        ),
        Comparator::BinaryComponent { offset, value } => (
            "BinaryComponentComparator",
            pb::BinaryComponentComparator {
                value: value.to_vec(),
                offset: *offset,
            }
            .encode_to_vec(),
        ),
    };
    pb::Comparator {
        name: format!("{FILTER_PACKAGE}.{name}"),
        serialized_comparator: Some(data),
    }
}

fn compare_pb(op: CompareOperator, c: &Comparator) -> pb::CompareFilter {
    pb::CompareFilter {
        compare_op: compare_type(op) as i32,
        comparator: Some(comparator_pb(c)),
    }
}

fn i32_of(n: impl TryInto<i32>) -> i32 {
    n.try_into().unwrap_or(i32::MAX)
}

/// A wrapper filter's message: the filter it wraps.
fn held(inner: &FilterSpec) -> Vec<u8> {
    pb::FilterHolder {
        filter: filter_pb(inner),
    }
    .encode_to_vec()
}

fn list_pb(must_pass_all: bool, filters: &[FilterSpec]) -> Vec<u8> {
    pb::FilterList {
        operator: if must_pass_all {
            pb::filter_list::Operator::MustPassAll
        } else {
            pb::filter_list::Operator::MustPassOne
        } as i32,
        filters: filters.iter().map(filter_pb).collect(),
    }
    .encode_to_vec()
}

fn fuzzy_pb(keys: &[(Bytes, Bytes)]) -> Vec<u8> {
    pb::FuzzyRowFilter {
        // The processed form HBase's client sends (-1 a fixed byte, 2 any byte): a raw mask
        // of all zeros could not be told from a processed one.
        fuzzy_keys_data: keys
            .iter()
            .map(|(k, m)| pb::BytesBytesPair {
                first: k.to_vec(),
                second: m.iter().map(|&b| if b == 0 { 0xff } else { 2 }).collect(),
            })
            .collect(),
    }
    .encode_to_vec()
}

fn ranges_pb(ranges: &[RowRange]) -> Vec<u8> {
    pb::MultiRowRangeFilter {
        row_range_list: ranges
            .iter()
            .map(|r| pb::RowRange {
                start_row: Some(r.start.to_vec()),
                start_row_inclusive: Some(r.start_inclusive),
                stop_row: Some(r.stop.to_vec()),
                stop_row_inclusive: Some(r.stop_inclusive),
            })
            .collect(),
    }
    .encode_to_vec()
}

/// A compare filter's message (RowFilter, FamilyFilter, QualifierFilter, ValueFilter).
fn compared(op: CompareOperator, c: &Comparator) -> Vec<u8> {
    pb::CompareFilterHolder {
        compare_filter: compare_pb(op, c),
    }
    .encode_to_vec()
}

/// A DependentColumnFilter's comparison: none is NO_OP.
fn dependent_compare(compare: Option<&(CompareOperator, Comparator)>) -> pb::CompareFilter {
    match compare {
        Some((op, c)) => compare_pb(*op, c),
        None => pb::CompareFilter {
            compare_op: CompareType::NoOp as i32,
            comparator: None,
        },
    }
}

/// SingleColumnValueFilter, or its Exclude form around it.
fn single_column_value_pb(
    m: pb::SingleColumnValueFilter,
    exclude: bool,
) -> (&'static str, Vec<u8>) {
    if exclude {
        let outer = pb::SingleColumnValueExcludeFilter {
            single_column_value_filter: m,
        };
        ("SingleColumnValueExcludeFilter", outer.encode_to_vec())
    } else {
        ("SingleColumnValueFilter", m.encode_to_vec())
    }
}

/// A filter in the protobuf form HBase's clients send (the inverse of [`filter`]).
pub fn filter_pb(spec: &FilterSpec) -> pb::Filter {
    let (name, data) = match spec {
        FilterSpec::KeyOnly { len_as_value } => {
            let m = pb::KeyOnlyFilter {
                len_as_val: *len_as_value,
            };
            ("KeyOnlyFilter", m.encode_to_vec())
        }
        FilterSpec::FirstKeyOnly => ("FirstKeyOnlyFilter", Vec::new()),
        FilterSpec::Prefix(p) => (
            "PrefixFilter",
            pb::PrefixFilter {
                prefix: Some(p.to_vec()),
            }
            .encode_to_vec(),
        ),
        FilterSpec::ColumnPrefix(p) => (
            "ColumnPrefixFilter",
            pb::ColumnPrefixFilter { prefix: p.to_vec() }.encode_to_vec(),
        ),
        FilterSpec::MultipleColumnPrefix(ps) => (
            "MultipleColumnPrefixFilter",
            pb::MultipleColumnPrefixFilter {
                sorted_prefixes: ps.iter().map(|p| p.to_vec()).collect(),
            }
            .encode_to_vec(),
        ),
        FilterSpec::ColumnCountGet(n) => (
            "ColumnCountGetFilter",
            pb::ColumnCountGetFilter { limit: i32_of(*n) }.encode_to_vec(),
        ),
        FilterSpec::Page(n) => (
            "PageFilter",
            pb::PageFilter {
                page_size: i64::try_from(*n).unwrap_or(i64::MAX),
            }
            .encode_to_vec(),
        ),
        FilterSpec::ColumnPagination {
            limit,
            offset,
            column_offset,
        } => (
            "ColumnPaginationFilter",
            pb::ColumnPaginationFilter {
                limit: i32_of(*limit),
                offset: column_offset.is_none().then(|| i32_of(*offset)),
                column_offset: column_offset.as_ref().map(|c| c.to_vec()),
            }
            .encode_to_vec(),
        ),
        FilterSpec::InclusiveStop(r) => (
            "InclusiveStopFilter",
            pb::InclusiveStopFilter {
                stop_row_key: Some(r.to_vec()),
            }
            .encode_to_vec(),
        ),
        FilterSpec::Timestamps(ts) => (
            "TimestampsFilter",
            pb::TimestampsFilter {
                timestamps: ts.clone(),
                ..pb::TimestampsFilter::default()
            }
            .encode_to_vec(),
        ),
        FilterSpec::Row(op, c) => ("RowFilter", compared(*op, c)),
        FilterSpec::Family(op, c) => ("FamilyFilter", compared(*op, c)),
        FilterSpec::Qualifier(op, c) => ("QualifierFilter", compared(*op, c)),
        FilterSpec::Value(op, c) => ("ValueFilter", compared(*op, c)),
        FilterSpec::ColumnRange {
            min,
            min_inclusive,
            max,
            max_inclusive,
        } => {
            let m = pb::ColumnRangeFilter {
                min_column: Some(min.to_vec()),
                min_column_inclusive: Some(*min_inclusive),
                max_column: Some(max.to_vec()),
                max_column_inclusive: Some(*max_inclusive),
            };
            ("ColumnRangeFilter", m.encode_to_vec())
        }
        FilterSpec::SingleColumnValue {
            family,
            qualifier,
            op,
            comparator,
            filter_if_missing,
            latest_version_only,
            exclude,
        } => {
            let m = pb::SingleColumnValueFilter {
                column_family: Some(family.to_vec()),
                column_qualifier: Some(qualifier.to_vec()),
                compare_op: compare_type(*op) as i32,
                comparator: comparator_pb(comparator),
                filter_if_missing: Some(*filter_if_missing),
                latest_version_only: Some(*latest_version_only),
            };
            single_column_value_pb(m, *exclude)
        }
        FilterSpec::DependentColumn {
            family,
            qualifier,
            drop_dependent,
            compare,
        } => {
            let m = pb::DependentColumnFilter {
                compare_filter: dependent_compare(compare.as_ref()),
                column_family: Some(family.to_vec()),
                column_qualifier: Some(qualifier.to_vec()),
                drop_dependent_column: Some(*drop_dependent),
            };
            ("DependentColumnFilter", m.encode_to_vec())
        }
        FilterSpec::ColumnValue {
            family,
            qualifier,
            op,
            comparator,
        } => (
            "ColumnValueFilter",
            pb::ColumnValueFilter {
                family: family.to_vec(),
                qualifier: qualifier.to_vec(),
                compare_op: compare_type(*op) as i32,
                comparator: comparator_pb(comparator),
            }
            .encode_to_vec(),
        ),
        FilterSpec::Skip(inner) => ("SkipFilter", held(inner)),
        FilterSpec::WhileMatch(inner) => ("WhileMatchFilter", held(inner)),
        FilterSpec::List {
            must_pass_all,
            filters,
        } => ("FilterList", list_pb(*must_pass_all, filters)),
        FilterSpec::FuzzyRow(keys) => ("FuzzyRowFilter", fuzzy_pb(keys)),
        FilterSpec::MultiRowRange(ranges) => ("MultiRowRangeFilter", ranges_pb(ranges)),
        FilterSpec::RandomRow(chance) => (
            "RandomRowFilter",
            pb::RandomRowFilter { chance: *chance }.encode_to_vec(),
        ),
    };
    pb::Filter {
        name: format!("{FILTER_PACKAGE}.{name}"),
        serialized_filter: Some(data),
    }
}
