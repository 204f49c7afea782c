//! HBase's aggregation endpoint from the caller's side (AggregationClient): the regions'
//! parts merged, and what a client computes itself (the median, and every aggregation over
//! rows it reads, for the embedded engine and tables with a key layout).
//! `docs/design/aggregation.md`.

use basalt_common::{Bytes, Error, Result, RowResult, Scan};

pub use basalt_common::aggregate::{
    Aggregation, Interpreter, Number, Partial, RegionAggregate, merge,
};

/// The columns an aggregation reads: the scan's one family, its first qualifier (the value;
/// none: every cell of the family), and for the median its last when it names two (the
/// weight). A scan of another shape is an error naming it, as AggregationClient's checks.
pub fn columns(scan: &Scan, what: Aggregation) -> Result<(Bytes, Option<Bytes>, Option<Bytes>)> {
    if what == Aggregation::RowNum && scan.families.is_empty() {
        return Ok((Bytes::new(), None, None));
    }
    let mut families = scan.families.iter();
    let (Some((family, qualifiers)), None) = (families.next(), families.next()) else {
        return Err(Error::InvalidArgument(format!(
            "an aggregation reads exactly one family; the scan names {}",
            scan.families.len()
        )));
    };
    let qualifiers: Vec<&Bytes> = qualifiers.iter().flatten().collect();
    let value = qualifiers.first().map(|q| (*q).clone());
    let weight = (what == Aggregation::Median && qualifiers.len() > 1)
        .then(|| qualifiers.last().map(|q| (*q).clone()))
        .flatten();
    if what == Aggregation::Median && value.is_none() {
        return Err(Error::InvalidArgument(
            "the median reads one column (and optionally a weight column), not a whole family"
                .into(),
        ));
    }
    Ok((family.clone(), value, weight))
}

/// The weighted median of `(value, weight)` pairs: the smallest value at which the weights of
/// the values up to it reach half the total (each weight 1 when there is no weight column).
fn weighted_median(mut pairs: Vec<(Number, f64)>) -> Option<Number> {
    pairs.sort_by(|a, b| a.0.compare(b.0));
    let total: f64 = pairs.iter().map(|(_, w)| w).sum();
    let mut seen = 0.0;
    for (value, weight) in pairs {
        seen += weight;
        if seen * 2.0 >= total {
            return Some(value);
        }
    }
    None
}

/// The median of the rows' values (and weights), read here: each row's newest cell of the
/// value column that the interpreter reads, weighted by its weight column.
pub fn median(
    rows: impl Iterator<Item = Result<RowResult>>,
    interpreter: Interpreter,
    value: &[u8],
    weight: Option<&[u8]>,
) -> Result<Option<Number>> {
    let mut pairs = Vec::new();
    for row in rows {
        let row = row?;
        // Cells come by qualifier, the newest version first.
        let cell = |q: &[u8]| row.cells.iter().find(|c| c.qualifier() == q);
        let Some(v) = cell(value).and_then(|c| interpreter.value(c.value())) else {
            continue;
        };
        let w = match weight {
            None => 1.0,
            Some(q) => match cell(q).and_then(|c| interpreter.value(c.value())) {
                Some(w) => w.as_f64(),
                None => continue,
            },
        };
        pairs.push((v, w));
    }
    Ok(weighted_median(pairs))
}

/// An aggregation computed here over the rows of `scan` (as one part): for a connection whose
/// regions are in this process, or a table whose stored keys differ from its rows'.
pub fn over_rows(
    rows: impl Iterator<Item = Result<RowResult>>,
    scan: &Scan,
    interpreter: Interpreter,
    what: Aggregation,
) -> Result<Option<Number>> {
    let (_, value, weight) = columns(scan, what)?;
    if what == Aggregation::Median {
        let value = value.unwrap_or_default();
        return median(rows, interpreter, &value, weight.as_deref());
    }
    let mut part = RegionAggregate::new(what, interpreter, None);
    for row in rows {
        let row = row?;
        part.row(
            row.cells
                .iter()
                .filter(|c| value.as_ref().is_none_or(|q| c.qualifier() == &q[..]))
                .map(|c| (c.qualifier(), c.value())),
        );
    }
    Ok(merge(what, &[part.finish()]))
}

/// An aggregation computed here over the rows `client` reads with `scan` (as one part), for
/// a connection whose regions are in this process or a table whose stored keys differ from
/// its rows'.
pub fn computed_here<C: crate::Client + ?Sized>(
    client: std::sync::Arc<C>,
    table: &basalt_common::TableName,
    scan: &Scan,
    interpreter: Interpreter,
    what: Aggregation,
) -> Result<Option<Number>> {
    columns(scan, what)?;
    let rows = client.scan(table, scan)?;
    over_rows(rows, scan, interpreter, what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_is_the_value_where_half_the_weight_is_reached() {
        let l = Number::Long;
        assert_eq!(
            weighted_median(vec![(l(5), 1.0), (l(1), 1.0), (l(3), 1.0)]),
            Some(l(3))
        );
        assert_eq!(
            weighted_median(vec![(l(1), 1.0), (l(2), 1.0), (l(3), 1.0), (l(4), 1.0)]),
            Some(l(2))
        );
        // A heavy value pulls the median to it.
        assert_eq!(
            weighted_median(vec![(l(1), 1.0), (l(2), 1.0), (l(9), 10.0)]),
            Some(l(9))
        );
        assert_eq!(weighted_median(Vec::new()), None);
    }
}
