//! Filters in the model test, and the oracle's naive reading of them: a row's visible cells
//! (every version the family keeps, as HBase shows a filter) go through a plain predicate, and
//! a column keeps the first `versions` cells that pass. No return codes, hints or seeks.

use basalt_embedded::{Cell, CompareOperator, FilterSpec};

use super::{FAMILIES, Row};

#[derive(Debug, Clone)]
pub enum ModelFilter {
    Value(CompareOperator, Row),
    Qualifier(CompareOperator, Row),
    Row(CompareOperator, Row),
    Prefix(Row),
    ColumnPrefix(Row),
    KeyOnly,
    FirstKeyOnly,
    SingleColumnValue {
        family: usize,
        qualifier: Row,
        op: CompareOperator,
        value: Row,
        if_missing: bool,
    },
    /// `SKIP ValueFilter`.
    SkipValue(CompareOperator, Row),
    /// `ValueFilter AND ColumnPrefixFilter`.
    ValueAndColumnPrefix(CompareOperator, Row, Row),
    /// `ValueFilter OR QualifierFilter`.
    ValueOrQualifier(CompareOperator, Row, Row),
}

fn binary(v: &Row) -> basalt_embedded::Comparator {
    basalt_embedded::Comparator::Binary(v.clone().into())
}

/// The filters' reading of an operator: `cell op value`.
fn passes(op: CompareOperator, cell: &[u8], value: &Row) -> bool {
    op.matches(cell.cmp(value))
}

impl ModelFilter {
    pub fn spec(&self) -> FilterSpec {
        match self {
            ModelFilter::Value(op, v) => FilterSpec::Value(*op, binary(v)),
            ModelFilter::Qualifier(op, q) => FilterSpec::Qualifier(*op, binary(q)),
            ModelFilter::Row(op, r) => FilterSpec::Row(*op, binary(r)),
            ModelFilter::Prefix(p) => FilterSpec::Prefix(p.clone().into()),
            ModelFilter::ColumnPrefix(p) => FilterSpec::ColumnPrefix(p.clone().into()),
            ModelFilter::KeyOnly => FilterSpec::KeyOnly {
                len_as_value: false,
            },
            ModelFilter::FirstKeyOnly => FilterSpec::FirstKeyOnly,
            ModelFilter::SingleColumnValue {
                family,
                qualifier,
                op,
                value,
                if_missing,
            } => FilterSpec::SingleColumnValue {
                family: FAMILIES[*family].into(),
                qualifier: qualifier.clone().into(),
                op: *op,
                comparator: binary(value),
                filter_if_missing: *if_missing,
                latest_version_only: true,
                exclude: false,
            },
            ModelFilter::SkipValue(op, v) => {
                FilterSpec::Skip(Box::new(FilterSpec::Value(*op, binary(v))))
            }
            ModelFilter::ValueAndColumnPrefix(op, v, p) => FilterSpec::List {
                must_pass_all: true,
                filters: vec![
                    FilterSpec::Value(*op, binary(v)),
                    FilterSpec::ColumnPrefix(p.clone().into()),
                ],
            },
            ModelFilter::ValueOrQualifier(op, v, q) => FilterSpec::List {
                must_pass_all: false,
                filters: vec![
                    FilterSpec::Value(*op, binary(v)),
                    FilterSpec::Qualifier(*op, binary(q)),
                ],
            },
        }
    }

    /// Whether the filter decides on whole rows (a scan with it cannot batch).
    pub fn whole_rows(&self) -> bool {
        matches!(
            self,
            ModelFilter::SingleColumnValue { .. } | ModelFilter::SkipValue(..)
        )
    }

    /// The cell predicate of a filter that decides cell by cell.
    fn cell_test(&self, cell: &Cell) -> bool {
        match self {
            ModelFilter::Value(op, v) | ModelFilter::SkipValue(op, v) => {
                passes(*op, cell.value(), v)
            }
            ModelFilter::Qualifier(op, q) => passes(*op, cell.qualifier(), q),
            ModelFilter::ColumnPrefix(p) => cell.qualifier().starts_with(p),
            ModelFilter::ValueAndColumnPrefix(op, v, p) => {
                passes(*op, cell.value(), v) && cell.qualifier().starts_with(p)
            }
            ModelFilter::ValueOrQualifier(op, v, q) => {
                passes(*op, cell.value(), v) || passes(*op, cell.qualifier(), q)
            }
            _ => true,
        }
    }

    /// What a read of `row` returns under the filter, from `visible`: the row's cells, every
    /// version the family keeps, in cell order; `versions` is the read's version count.
    pub fn apply(&self, row: &Row, visible: Vec<Cell>, versions: u32) -> Vec<Cell> {
        match self {
            ModelFilter::Row(op, r) if !passes(*op, row, r) => return Vec::new(),
            ModelFilter::Prefix(p) if !row.starts_with(p) => return Vec::new(),
            ModelFilter::FirstKeyOnly => return visible.into_iter().take(1).collect(),
            ModelFilter::SingleColumnValue {
                family,
                qualifier,
                op,
                value,
                if_missing,
            } => {
                let tested = visible.iter().find(|c| {
                    c.family() == FAMILIES[*family].as_bytes() && c.qualifier() == &qualifier[..]
                });
                let keep = match tested {
                    Some(c) => passes(*op, c.value(), value),
                    None => !if_missing,
                };
                if !keep {
                    return Vec::new();
                }
            }
            _ => {}
        }
        let mut out: Vec<Cell> = Vec::new();
        let mut rejected = false;
        let mut column: Option<(Vec<u8>, Vec<u8>)> = None;
        let mut included = 0u32;
        let mut column_done = false;
        for cell in visible {
            let key = (cell.family().to_vec(), cell.qualifier().to_vec());
            if column.as_ref() != Some(&key) {
                column = Some(key);
                included = 0;
                column_done = false;
            }
            if column_done {
                continue;
            }
            // The filter sees the cell; past the read's versions of included cells the
            // column ends.
            if !self.cell_test(&cell) {
                rejected = true;
                continue;
            }
            included += 1;
            if included > versions {
                column_done = true;
                continue;
            }
            out.push(cell);
        }
        if rejected && matches!(self, ModelFilter::SkipValue(..)) {
            return Vec::new();
        }
        if let ModelFilter::KeyOnly = self {
            for c in &mut out {
                *c = Cell::new(
                    c.row(),
                    c.family(),
                    c.qualifier(),
                    c.timestamp,
                    c.cell_type,
                    b"",
                )
                .with_seq_id(c.seq_id)
                .with_ttl_ms(c.ttl_ms);
            }
        }
        out
    }
}
