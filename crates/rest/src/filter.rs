//! HBase's JSON filter model (the `filter` of a REST Scanner): `{"type": "PrefixFilter",
//! "value": "<base64>"}` and the rest of its zoo, onto Basalt's [`FilterSpec`]. Byte strings
//! are base64 except the values of RegexStringComparator and SubstringComparator, which are
//! plain text, as in HBase.

use basalt_client::{BitOp, Bytes, Comparator, CompareOperator, FilterSpec, RowRange};
use serde_json::Value;

use crate::cellset::unb64;
use crate::media::RestError;

type Result<T> = std::result::Result<T, RestError>;

/// Parses a filter in HBase's JSON form.
pub fn parse_json_filter(text: &str) -> Result<FilterSpec> {
    let doc: Value = serde_json::from_str(text)
        .map_err(|e| RestError::bad_request(format!("the scanner filter is not JSON: {e}")))?;
    build(&doc)
}

fn field<'a>(f: &'a Value, name: &str) -> Result<&'a Value> {
    f.get(name).ok_or_else(|| {
        RestError::bad_request(format!(
            "{} needs \"{name}\"",
            f.get("type").and_then(Value::as_str).unwrap_or("a filter")
        ))
    })
}

fn text<'a>(f: &'a Value, name: &str) -> Result<&'a str> {
    field(f, name)?
        .as_str()
        .ok_or_else(|| RestError::bad_request(format!("\"{name}\" must be a string")))
}

fn bytes(f: &Value, name: &str) -> Result<Bytes> {
    Ok(Bytes::from(unb64(name, text(f, name)?)?))
}

fn opt_bytes(f: &Value, name: &str) -> Result<Bytes> {
    match f.get(name) {
        None | Some(Value::Null) => Ok(Bytes::new()),
        Some(_) => bytes(f, name),
    }
}

fn number(f: &Value, name: &str) -> Result<i64> {
    let v = field(f, name)?;
    v.as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| RestError::bad_request(format!("\"{name}\" must be a whole number")))
}

fn flag(f: &Value, name: &str, default: bool) -> Result<bool> {
    match f.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
        Some(other) => Err(RestError::bad_request(format!(
            "\"{name}\" must be true or false, not {other}"
        ))),
    }
}

fn u32_of(f: &Value, name: &str) -> Result<u32> {
    u32::try_from(number(f, name)?)
        .map_err(|_| RestError::bad_request(format!("\"{name}\" must be 0 or more")))
}

fn op(f: &Value) -> Result<CompareOperator> {
    text(f, "op")?.parse().map_err(RestError::from)
}

fn comparator(f: &Value) -> Result<Comparator> {
    let c = field(f, "comparator")?;
    let kind = text(c, "type")?;
    Ok(match kind {
        "BinaryComparator" => Comparator::Binary(bytes(c, "value")?),
        "BinaryPrefixComparator" => Comparator::BinaryPrefix(bytes(c, "value")?),
        "BitComparator" => Comparator::Bit {
            value: bytes(c, "value")?,
            op: match text(c, "op")? {
                "AND" => BitOp::And,
                "OR" => BitOp::Or,
                "XOR" => BitOp::Xor,
                other => {
                    return Err(RestError::bad_request(format!(
                        "BitComparator op must be AND, OR or XOR, not {other:?}"
                    )));
                }
            },
        },
        "NullComparator" => Comparator::Null,
        "RegexStringComparator" => Comparator::RegexString(text(c, "value")?.to_owned()),
        "SubstringComparator" => Comparator::Substring(text(c, "value")?.to_owned()),
        other => {
            return Err(RestError::bad_request(format!(
                "unknown comparator type {other:?}"
            )));
        }
    })
}

fn children(f: &Value) -> Result<Vec<FilterSpec>> {
    match field(f, "filters")? {
        Value::Array(list) => list.iter().map(build).collect(),
        one @ Value::Object(_) => Ok(vec![build(one)?]),
        _ => Err(RestError::bad_request(
            "\"filters\" must be a list of filters",
        )),
    }
}

fn only_child(f: &Value) -> Result<Box<FilterSpec>> {
    let mut list = children(f)?;
    if list.len() != 1 {
        return Err(RestError::bad_request(format!(
            "{} wraps exactly one filter, got {}",
            text(f, "type")?,
            list.len()
        )));
    }
    Ok(Box::new(list.remove(0)))
}

fn build(f: &Value) -> Result<FilterSpec> {
    let kind = text(f, "type")?;
    Ok(match kind {
        "ColumnCountGetFilter" => FilterSpec::ColumnCountGet(u32_of(f, "limit")?),
        "ColumnPaginationFilter" => FilterSpec::ColumnPagination {
            limit: u32_of(f, "limit")?,
            offset: u32_of(f, "offset")?,
            column_offset: None,
        },
        "ColumnPrefixFilter" => FilterSpec::ColumnPrefix(bytes(f, "value")?),
        "ColumnRangeFilter" => FilterSpec::ColumnRange {
            min: opt_bytes(f, "minColumn")?,
            min_inclusive: flag(f, "minColumnInclusive", true)?,
            max: opt_bytes(f, "maxColumn")?,
            max_inclusive: flag(f, "maxColumnInclusive", false)?,
        },
        "DependentColumnFilter" => FilterSpec::DependentColumn {
            family: bytes(f, "family")?,
            qualifier: opt_bytes(f, "qualifier")?,
            drop_dependent: flag(f, "dropDependentColumn", false)?,
            compare: if f.get("comparator").is_some() {
                Some((op(f)?, comparator(f)?))
            } else {
                None
            },
        },
        "FamilyFilter" => FilterSpec::Family(op(f)?, comparator(f)?),
        "QualifierFilter" => FilterSpec::Qualifier(op(f)?, comparator(f)?),
        "RowFilter" => FilterSpec::Row(op(f)?, comparator(f)?),
        "ValueFilter" => FilterSpec::Value(op(f)?, comparator(f)?),
        "FilterList" => FilterSpec::List {
            must_pass_all: match text(f, "op")? {
                "MUST_PASS_ALL" => true,
                "MUST_PASS_ONE" => false,
                other => {
                    return Err(RestError::bad_request(format!(
                        "FilterList op must be MUST_PASS_ALL or MUST_PASS_ONE, not {other:?}"
                    )));
                }
            },
            filters: children(f)?,
        },
        "FirstKeyOnlyFilter" => FilterSpec::FirstKeyOnly,
        "KeyOnlyFilter" => FilterSpec::KeyOnly {
            len_as_value: false,
        },
        "InclusiveStopFilter" => FilterSpec::InclusiveStop(bytes(f, "value")?),
        "MultipleColumnPrefixFilter" => {
            let prefixes = match field(f, "prefixes")? {
                Value::Array(list) => list
                    .iter()
                    .map(|p| {
                        p.as_str()
                            .ok_or_else(|| RestError::bad_request("a prefix must be a string"))
                            .and_then(|p| unb64("a prefix", p))
                            .map(Bytes::from)
                    })
                    .collect::<Result<Vec<_>>>()?,
                _ => return Err(RestError::bad_request("\"prefixes\" must be a list")),
            };
            FilterSpec::MultipleColumnPrefix(prefixes)
        }
        "MultiRowRangeFilter" => {
            let Value::Array(ranges) = field(f, "ranges")? else {
                return Err(RestError::bad_request("\"ranges\" must be a list"));
            };
            let ranges = ranges
                .iter()
                .map(|r| {
                    Ok(RowRange {
                        start: opt_bytes(r, "startRow")?,
                        start_inclusive: flag(r, "startRowInclusive", true)?,
                        stop: opt_bytes(r, "stopRow")?,
                        stop_inclusive: flag(r, "stopRowInclusive", false)?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            FilterSpec::MultiRowRange(ranges)
        }
        "PageFilter" => FilterSpec::Page(
            u64::try_from(number(f, "value")?)
                .map_err(|_| RestError::bad_request("a PageFilter's size must be 0 or more"))?,
        ),
        "PrefixFilter" => FilterSpec::Prefix(bytes(f, "value")?),
        "RandomRowFilter" => FilterSpec::RandomRow(
            field(f, "chance")?
                .as_f64()
                .ok_or_else(|| RestError::bad_request("\"chance\" must be a number"))?
                as f32,
        ),
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            FilterSpec::SingleColumnValue {
                family: bytes(f, "family")?,
                qualifier: opt_bytes(f, "qualifier")?,
                op: op(f)?,
                comparator: comparator(f)?,
                filter_if_missing: flag(f, "ifMissing", false)?,
                latest_version_only: flag(f, "latestVersion", false)?,
                exclude: kind == "SingleColumnValueExcludeFilter",
            }
        }
        "SkipFilter" => FilterSpec::Skip(only_child(f)?),
        "WhileMatchFilter" => FilterSpec::WhileMatch(only_child(f)?),
        "TimestampsFilter" => {
            let Value::Array(list) = field(f, "timestamps")? else {
                return Err(RestError::bad_request("\"timestamps\" must be a list"));
            };
            FilterSpec::Timestamps(
                list.iter()
                    .map(|t| {
                        t.as_i64()
                            .ok_or_else(|| RestError::bad_request("a timestamp must be a number"))
                    })
                    .collect::<Result<Vec<_>>>()?,
            )
        }
        "FuzzyRowFilter" => {
            let Value::Array(list) = field(f, "fuzzyKeys")? else {
                return Err(RestError::bad_request("\"fuzzyKeys\" must be a list"));
            };
            FilterSpec::FuzzyRow(
                list.iter()
                    .map(|k| Ok((bytes(k, "key")?, bytes(k, "mask")?)))
                    .collect::<Result<Vec<_>>>()?,
            )
        }
        other => {
            return Err(RestError::bad_request(format!(
                "unknown filter type {other:?}"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hbase_s_json_filters() {
        assert_eq!(
            parse_json_filter(r#"{"type":"PrefixFilter","value":"YWI="}"#).expect("ok"),
            FilterSpec::Prefix(Bytes::from_static(b"ab"))
        );
        let list = parse_json_filter(
            r#"{"type":"FilterList","op":"MUST_PASS_ONE","filters":[
                {"type":"RowFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"cjE="}},
                {"type":"ValueFilter","op":"NOT_EQUAL","comparator":{"type":"SubstringComparator","value":"x"}},
                {"type":"PageFilter","value":"10"},
                {"type":"WhileMatchFilter","filters":[{"type":"KeyOnlyFilter"}]}]}"#,
        )
        .expect("ok");
        let FilterSpec::List {
            must_pass_all,
            filters,
        } = list
        else {
            panic!("not a list: {list:?}");
        };
        assert!(!must_pass_all);
        assert_eq!(
            filters[0],
            FilterSpec::Row(
                CompareOperator::Equal,
                Comparator::Binary(Bytes::from_static(b"r1"))
            )
        );
        assert_eq!(
            filters[1],
            FilterSpec::Value(CompareOperator::NotEqual, Comparator::Substring("x".into()))
        );
        assert_eq!(filters[2], FilterSpec::Page(10));
    }

    #[test]
    fn bad_filters_name_what_is_wrong() {
        for (json, says) in [
            ("{", "not JSON"),
            (r#"{"type":"NoSuchFilter"}"#, "NoSuchFilter"),
            (r#"{"type":"PrefixFilter"}"#, "\"value\""),
            (r#"{"type":"PrefixFilter","value":"%%"}"#, "base64"),
            (
                r#"{"type":"RowFilter","op":"SIDEWAYS","comparator":{"type":"BinaryComparator","value":""}}"#,
                "SIDEWAYS",
            ),
            (
                r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"Nope","value":""}}"#,
                "Nope",
            ),
        ] {
            let err = parse_json_filter(json).expect_err(json);
            assert_eq!(err.status.as_u16(), 400);
            assert!(err.message.contains(says), "{json}: {}", err.message);
        }
    }
}
