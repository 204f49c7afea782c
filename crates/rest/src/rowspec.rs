//! The row part of a REST path, as HBase's `RowSpec` reads it:
//! `<row>[,<end row>][/<column>[,<column>...]][/<timestamp> or /<start>,<end>]` with `?v=N`
//! for versions. A row ending in `*` is a prefix. Each piece is percent-decoded after the path
//! is split, so `%2C` and `%2F` are a literal comma and slash in a key.

use basalt_client::{Bytes, Get, Scan};

use crate::media::RestError;

/// A column of a row spec: a family, or a family and qualifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub family: Bytes,
    /// `None` for `family` or `family:` (the whole family).
    pub qualifier: Option<Bytes>,
}

impl Column {
    /// `family[:qualifier]`.
    pub fn parse(spec: &[u8]) -> Result<Column, RestError> {
        let (family, qualifier) = match spec.iter().position(|&b| b == b':') {
            Some(i) => {
                let q = &spec[i + 1..];
                (
                    &spec[..i],
                    (!q.is_empty()).then(|| Bytes::copy_from_slice(q)),
                )
            }
            None => (spec, None),
        };
        if family.is_empty() {
            return Err(RestError::bad_request(format!(
                "column {:?} has no family",
                String::from_utf8_lossy(spec)
            )));
        }
        Ok(Column {
            family: Bytes::copy_from_slice(family),
            qualifier,
        })
    }
}

/// A parsed row spec.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowSpec {
    pub row: Bytes,
    /// `row,end`: a scan from `row` up to (not including) `end`.
    pub end_row: Option<Bytes>,
    /// `row*`: every row starting with `row`.
    pub prefix: bool,
    pub columns: Vec<Column>,
    /// One timestamp (an exact match), or `[start, end)`.
    pub timestamp: Option<i64>,
    pub time_range: Option<(i64, i64)>,
    pub max_versions: u32,
}

/// Percent-decodes one piece of a path or query.
pub fn decode(piece: &str) -> Result<Vec<u8>, RestError> {
    basalt_net::http::percent_decode(piece).map_err(RestError::bad_request)
}

fn number(what: &str, text: &str) -> Result<i64, RestError> {
    text.trim()
        .parse()
        .map_err(|_| RestError::bad_request(format!("{what} {text:?} is not a number")))
}

impl RowSpec {
    /// Parses the path pieces after the table (still percent-encoded) and the query's `v`.
    pub fn parse(pieces: &[&str], versions: Option<&str>) -> Result<RowSpec, RestError> {
        let mut spec = RowSpec {
            max_versions: 1,
            ..RowSpec::default()
        };
        let Some(row) = pieces.first() else {
            return Err(RestError::bad_request("no row given"));
        };
        let (start, end) = match row.split_once(',') {
            Some((s, e)) => (s, Some(e)),
            None => (*row, None),
        };
        let mut start = decode(start)?;
        if start.last() == Some(&b'*') && end.is_none() {
            start.pop();
            spec.prefix = true;
        }
        spec.row = Bytes::from(start);
        spec.end_row = end.map(decode).transpose()?.map(Bytes::from);
        if let Some(columns) = pieces.get(1) {
            for column in columns.split(',').filter(|c| !c.is_empty()) {
                spec.columns.push(Column::parse(&decode(column)?)?);
            }
        }
        if let Some(time) = pieces.get(2).filter(|t| !t.is_empty()) {
            match time.split_once(',') {
                Some((s, e)) => {
                    let (s, e) = (number("start time", s)?, number("end time", e)?);
                    if s < 0 || e < s {
                        return Err(RestError::bad_request(format!(
                            "time range {s},{e} is not a range"
                        )));
                    }
                    spec.time_range = Some((s, e));
                }
                None => {
                    let ts = number("timestamp", time)?;
                    if ts < 0 {
                        return Err(RestError::bad_request(format!(
                            "timestamp {ts} is negative"
                        )));
                    }
                    spec.timestamp = Some(ts);
                }
            }
        }
        if pieces.len() > 3 && pieces[3..].iter().any(|p| !p.is_empty()) {
            return Err(RestError::bad_request(format!(
                "too many parts in the row path {:?}",
                pieces.join("/")
            )));
        }
        if let Some(v) = versions {
            let v = number("versions", v)?;
            spec.max_versions = u32::try_from(v)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| RestError::bad_request(format!("versions {v} must be 1 or more")))?;
        }
        Ok(spec)
    }

    /// Whether this spec reads many rows (a range or prefix) rather than one.
    pub fn is_scan(&self) -> bool {
        self.end_row.is_some() || self.prefix
    }

    /// The Get of a single-row spec.
    pub fn get(&self) -> Get {
        let mut get = Get::new(self.row.clone()).read_versions(self.max_versions);
        for c in &self.columns {
            get = match &c.qualifier {
                Some(q) => get.add_column(c.family.clone(), q.clone()),
                None => get.add_family(c.family.clone()),
            };
        }
        if let Some(ts) = self.timestamp {
            get = get.with_timestamp(ts);
        } else if let Some((s, e)) = self.time_range {
            get = get.with_time_range(s, e);
        }
        get
    }

    /// The Scan of a range or prefix spec.
    pub fn scan(&self) -> Scan {
        let mut scan = if self.prefix {
            Scan::new().with_row_prefix(self.row.clone())
        } else {
            let mut s = Scan::new().with_start_row(self.row.clone());
            if let Some(end) = &self.end_row {
                s = s.with_stop_row(end.clone());
            }
            s
        };
        scan = scan.read_versions(self.max_versions);
        for c in &self.columns {
            scan = match &c.qualifier {
                Some(q) => scan.add_column(c.family.clone(), q.clone()),
                None => scan.add_family(c.family.clone()),
            };
        }
        if let Some(ts) = self.timestamp {
            scan = scan.with_timestamp(ts);
        } else if let Some((s, e)) = self.time_range {
            scan = scan.with_time_range(s, e);
        }
        scan
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_hbase_s_row_paths() {
        let s = RowSpec::parse(&["r%2C1", "cf:a,cf2", "5"], Some("3")).expect("ok");
        assert_eq!(&s.row[..], b"r,1");
        assert_eq!(s.columns.len(), 2);
        assert_eq!(s.columns[1].qualifier, None);
        assert_eq!(s.timestamp, Some(5));
        assert_eq!(s.max_versions, 3);
        assert!(!s.is_scan());

        let s = RowSpec::parse(&["a,c", "", "1,9"], None).expect("ok");
        assert_eq!(s.end_row.as_deref(), Some(&b"c"[..]));
        assert_eq!(s.time_range, Some((1, 9)));
        assert!(s.is_scan());

        let s = RowSpec::parse(&["test*"], None).expect("ok");
        assert!(s.prefix);
        assert_eq!(&s.row[..], b"test");
        // starbase's trailing slash.
        assert!(
            RowSpec::parse(&["r", ""], None)
                .expect("ok")
                .columns
                .is_empty()
        );
    }

    #[test]
    fn bad_paths_are_bad_requests() {
        for (pieces, v) in [
            (&["r", "cf", "x"][..], None),
            (&["r", "cf", "9,1"][..], None),
            (&["r", ":q"][..], None),
            (&["r%zz"][..], None),
            (&["r"][..], Some("0")),
            (&["r", "cf", "1", "extra"][..], None),
        ] {
            let err = RowSpec::parse(pieces, v).expect_err("rejected");
            assert_eq!(err.status.as_u16(), 400, "{pieces:?}");
        }
    }
}
