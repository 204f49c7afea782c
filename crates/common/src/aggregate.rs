//! HBase's aggregation endpoint as data (AggregateImplementation and AggregationClient): the
//! column interpreters (8-byte big-endian longs or doubles; any other cell is skipped), the
//! seven aggregations, what one region answers and how the caller merges the regions'
//! answers. The region server computes [`Partial`]s (`basalt-regionserver`), the client merges
//! them (`basalt-client`); the wire form is `basalt_proto::aggregate`.

use std::cmp::Ordering;

use crate::error::{Error, Result};

/// How cell values are read as numbers (HBase's ColumnInterpreter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpreter {
    /// `LongColumnInterpreter`: an 8-byte big-endian long; sums wrap as Java's do.
    Long,
    /// `DoubleColumnInterpreter`: an 8-byte big-endian IEEE double.
    Double,
}

pub const LONG_INTERPRETER: &str =
    "org.apache.hadoop.hbase.client.coprocessor.LongColumnInterpreter";
pub const DOUBLE_INTERPRETER: &str =
    "org.apache.hadoop.hbase.client.coprocessor.DoubleColumnInterpreter";

impl Interpreter {
    /// By HBase's class name (whole or simple).
    pub fn from_class(name: &str) -> Result<Interpreter> {
        match name.rsplit('.').next().unwrap_or(name) {
            "LongColumnInterpreter" => Ok(Interpreter::Long),
            "DoubleColumnInterpreter" => Ok(Interpreter::Double),
            _ => Err(Error::InvalidArgument(format!(
                "column interpreter {name} is not supported (Basalt has LongColumnInterpreter \
                 and DoubleColumnInterpreter)"
            ))),
        }
    }

    pub fn class(self) -> &'static str {
        match self {
            Interpreter::Long => LONG_INTERPRETER,
            Interpreter::Double => DOUBLE_INTERPRETER,
        }
    }

    /// A cell's value as a number; None unless it is 8 bytes (HBase's `getValue`).
    pub fn value(self, bytes: &[u8]) -> Option<Number> {
        let raw: [u8; 8] = bytes.try_into().ok()?;
        Some(match self {
            Interpreter::Long => Number::Long(i64::from_be_bytes(raw)),
            Interpreter::Double => Number::Double(f64::from_be_bytes(raw)),
        })
    }
}

/// A value of an interpreter's type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    Long(i64),
    Double(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Long(v) => v as f64,
            Number::Double(v) => v,
        }
    }

    fn combine(
        self,
        other: Number,
        long: fn(i64, i64) -> i64,
        double: fn(f64, f64) -> f64,
    ) -> Number {
        match (self, other) {
            (Number::Long(a), Number::Long(b)) => Number::Long(long(a, b)),
            (a, b) => Number::Double(double(a.as_f64(), b.as_f64())),
        }
    }

    /// HBase's `add`: null plus a value is the value.
    pub fn add(a: Option<Number>, b: Option<Number>) -> Option<Number> {
        match (a, b) {
            (Some(a), Some(b)) => Some(a.combine(b, i64::wrapping_add, |x, y| x + y)),
            (a, None) => a,
            (None, b) => b,
        }
    }

    /// HBase's `multiply`: null if either is.
    pub fn multiply(a: Option<Number>, b: Option<Number>) -> Option<Number> {
        Some(a?.combine(b?, i64::wrapping_mul, |x, y| x * y))
    }

    pub fn compare(self, other: Number) -> Ordering {
        match (self, other) {
            (Number::Long(a), Number::Long(b)) => a.cmp(&b),
            (a, b) => a.as_f64().total_cmp(&b.as_f64()),
        }
    }
}

/// The seven aggregations (AggregateService's methods).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregation {
    Max,
    Min,
    Sum,
    RowNum,
    Avg,
    Std,
    Median,
}

impl Aggregation {
    pub const ALL: [Aggregation; 7] = [
        Aggregation::Max,
        Aggregation::Min,
        Aggregation::Sum,
        Aggregation::RowNum,
        Aggregation::Avg,
        Aggregation::Std,
        Aggregation::Median,
    ];

    /// AggregateService's method name (`GetMax`).
    pub fn method(self) -> &'static str {
        match self {
            Aggregation::Max => "GetMax",
            Aggregation::Min => "GetMin",
            Aggregation::Sum => "GetSum",
            Aggregation::RowNum => "GetRowNum",
            Aggregation::Avg => "GetAvg",
            Aggregation::Std => "GetStd",
            Aggregation::Median => "GetMedian",
        }
    }

    pub fn from_method(method: &str) -> Option<Aggregation> {
        Aggregation::ALL.into_iter().find(|a| a.method() == method)
    }

    /// By the name the shell and REST use (`SUM`, `max`, `rownum`, `count`, ...).
    pub fn from_name(name: &str) -> Result<Aggregation> {
        Ok(match name.to_ascii_uppercase().as_str() {
            "MAX" => Aggregation::Max,
            "MIN" => Aggregation::Min,
            "SUM" => Aggregation::Sum,
            "ROWNUM" | "ROW_COUNT" | "COUNT" => Aggregation::RowNum,
            "AVG" => Aggregation::Avg,
            "STD" => Aggregation::Std,
            "MEDIAN" => Aggregation::Median,
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "{name} is not an aggregation (MAX, MIN, SUM, ROWNUM, AVG, STD, MEDIAN)"
                )));
            }
        })
    }
}

/// What one region answers: AggregateResponse's `first_part` values and `second_part` row
/// count, as HBase's AggregateImplementation builds them. `values` is empty where HBase answers
/// no response (no value found).
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    pub values: Vec<Number>,
    pub rows: Option<i64>,
}

/// One region's aggregation, fed its rows' cells in order (as `next` hands them out).
#[derive(Debug)]
pub struct RegionAggregate {
    what: Aggregation,
    interpreter: Interpreter,
    /// The median's weight column, if it has one.
    weight: Option<Vec<u8>>,
    extreme: Option<Number>,
    sum: Option<Number>,
    sum_sq: Option<Number>,
    weights: Option<Number>,
    rows: i64,
}

impl RegionAggregate {
    pub fn new(what: Aggregation, interpreter: Interpreter, weight: Option<Vec<u8>>) -> Self {
        RegionAggregate {
            what,
            interpreter,
            weight,
            extreme: None,
            sum: None,
            sum_sq: None,
            weights: None,
            rows: 0,
        }
    }

    /// One row's cells, as `(qualifier, value)`.
    pub fn row<'a>(&mut self, cells: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) {
        let interp = self.interpreter;
        match self.what {
            Aggregation::Max | Aggregation::Min => {
                let wanted = if self.what == Aggregation::Max {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
                for (_, v) in cells {
                    if let Some(v) = interp.value(v) {
                        let better = self.extreme.is_none_or(|e| v.compare(e) == wanted);
                        if better {
                            self.extreme = Some(v);
                        }
                    }
                }
            }
            Aggregation::Sum => {
                for (_, v) in cells {
                    self.sum = Number::add(self.sum, interp.value(v));
                }
            }
            Aggregation::RowNum => {
                if cells.into_iter().next().is_some() {
                    self.rows += 1;
                }
            }
            Aggregation::Avg | Aggregation::Std => {
                let mut row = None;
                for (_, v) in cells {
                    row = Number::add(row, interp.value(v));
                }
                self.sum = Number::add(self.sum, row);
                self.sum_sq = Number::add(self.sum_sq, Number::multiply(row, row));
                // As HBase: every row scanned counts, with a value or not.
                self.rows += 1;
            }
            Aggregation::Median => {
                let (mut value, mut weight) = (None, None);
                for (q, v) in cells {
                    if self.weight.as_deref() == Some(q) {
                        weight = Number::add(weight, interp.value(v));
                    } else {
                        value = Number::add(value, interp.value(v));
                    }
                }
                self.sum = Number::add(self.sum, value);
                self.weights = Number::add(self.weights, weight);
            }
        }
    }

    /// The region's answer.
    pub fn finish(self) -> Partial {
        let values = match self.what {
            Aggregation::Max | Aggregation::Min => self.extreme.into_iter().collect(),
            Aggregation::Sum | Aggregation::Avg => self.sum.into_iter().collect(),
            Aggregation::RowNum => Vec::new(),
            Aggregation::Std => match (self.sum, self.sum_sq) {
                (Some(s), Some(q)) => vec![s, q],
                _ => Vec::new(),
            },
            Aggregation::Median => match self.sum {
                // Without weights, HBase sends the interpreter's minimum value.
                Some(s) => vec![
                    s,
                    self.weights.unwrap_or(match self.interpreter {
                        Interpreter::Long => Number::Long(i64::MIN),
                        Interpreter::Double => Number::Double(f64::from_bits(1)),
                    }),
                ],
                None => Vec::new(),
            },
        };
        let rows = match self.what {
            Aggregation::RowNum => Some(self.rows),
            Aggregation::Avg | Aggregation::Std if !values.is_empty() => Some(self.rows),
            _ => None,
        };
        Partial { values, rows }
    }
}

/// The regions' answers merged, as HBase's AggregationClient merges them: Max, Min and Sum in
/// the interpreter's type, RowNum a long, Avg and Std doubles; None where no region found a
/// value. Median is merged by the client with a second read (`basalt-client`).
pub fn merge(what: Aggregation, partials: &[Partial]) -> Option<Number> {
    match what {
        Aggregation::Max | Aggregation::Min => {
            let wanted = if what == Aggregation::Max {
                Ordering::Greater
            } else {
                Ordering::Less
            };
            partials
                .iter()
                .filter_map(|p| p.values.first().copied())
                .reduce(|a, b| if b.compare(a) == wanted { b } else { a })
        }
        Aggregation::Sum => partials
            .iter()
            .fold(None, |acc, p| Number::add(acc, p.values.first().copied())),
        Aggregation::RowNum => Some(Number::Long(
            partials.iter().filter_map(|p| p.rows).sum::<i64>(),
        )),
        Aggregation::Avg => {
            let (sum, rows) = totals(partials);
            sum.map(|s| Number::Double(s.as_f64() / rows as f64))
        }
        Aggregation::Std => {
            let (sum, rows) = totals(partials);
            let sum_sq = partials
                .iter()
                .fold(None, |acc, p| Number::add(acc, p.values.get(1).copied()));
            let (sum, sum_sq) = (sum?, sum_sq?);
            let avg = sum.as_f64() / rows as f64;
            let avg_sq = sum_sq.as_f64() / rows as f64;
            Some(Number::Double((avg_sq - avg * avg).sqrt()))
        }
        Aggregation::Median => None,
    }
}

fn totals(partials: &[Partial]) -> (Option<Number>, i64) {
    partials.iter().fold((None, 0), |(sum, rows), p| {
        (
            Number::add(sum, p.values.first().copied()),
            rows + p.rows.unwrap_or(0),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(v: i64) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    fn region(what: Aggregation, rows: &[&[i64]]) -> Partial {
        let mut agg = RegionAggregate::new(what, Interpreter::Long, None);
        for row in rows {
            let values: Vec<Vec<u8>> = row.iter().map(|v| long(*v)).collect();
            agg.row(values.iter().map(|v| (&b"q"[..], &v[..])));
        }
        agg.finish()
    }

    #[test]
    fn regions_merge_as_hbase_s_client_merges_them() {
        let a: &[&[i64]] = &[&[1], &[5], &[3]];
        let b: &[&[i64]] = &[&[-2], &[10]];
        let both = |what| merge(what, &[region(what, a), region(what, b)]);
        assert_eq!(both(Aggregation::Max), Some(Number::Long(10)));
        assert_eq!(both(Aggregation::Min), Some(Number::Long(-2)));
        assert_eq!(both(Aggregation::Sum), Some(Number::Long(17)));
        assert_eq!(both(Aggregation::RowNum), Some(Number::Long(5)));
        assert_eq!(both(Aggregation::Avg), Some(Number::Double(17.0 / 5.0)));
        let mean: f64 = 17.0 / 5.0;
        let var = (1.0 + 25.0 + 9.0 + 4.0 + 100.0) / 5.0 - mean * mean;
        assert_eq!(both(Aggregation::Std), Some(Number::Double(var.sqrt())));
        // An empty region answers nothing and changes nothing.
        let empty = region(Aggregation::Max, &[]);
        assert!(empty.values.is_empty());
        assert_eq!(
            merge(Aggregation::Max, &[empty, region(Aggregation::Max, a)]),
            Some(Number::Long(5))
        );
        assert_eq!(merge(Aggregation::Sum, &[]), None);
    }

    #[test]
    fn cells_that_are_not_eight_bytes_are_skipped() {
        let mut agg = RegionAggregate::new(Aggregation::Sum, Interpreter::Long, None);
        agg.row([(&b"q"[..], &b"abc"[..]), (&b"q"[..], &long(4)[..])]);
        assert_eq!(agg.finish().values, vec![Number::Long(4)]);
        assert!(Interpreter::from_class("BigDecimalColumnInterpreter").is_err());
        assert_eq!(
            Interpreter::from_class(DOUBLE_INTERPRETER).expect("a known class"),
            Interpreter::Double
        );
    }
}
