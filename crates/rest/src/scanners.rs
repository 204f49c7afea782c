//! Stateful REST scanners: a scan opened by `POST /<table>/scanner`, read in batches of cells
//! by `GET /<table>/scanner/<id>` until 204, closed by `DELETE` or after an idle lease.

use basalt_client::{Bytes, Cell, Result, RowResult, Scan, Scanner};
use basalt_net::http::axum::http::StatusCode as axum_status;
use basalt_net::http::axum::http::header as axum_header;
use basalt_net::http::axum::response::IntoResponse as _;
use serde_json::Value;

use crate::cellset::{CellModel, CellSet, RowModel, unb64};
use crate::filter::parse_json_filter;
use crate::media::{Media, RestError};
use crate::rowspec::Column;
use crate::{pb, xml};

/// An open scanner: the rows still to come, and what is left of a row a batch split.
#[derive(Debug)]
pub struct RestScanner {
    rows: Scanner,
    pending: Option<(Bytes, Vec<Cell>)>,
    /// Cells per batch.
    batch: usize,
    done: bool,
}

impl RestScanner {
    pub fn new(rows: Scanner, batch: usize) -> Self {
        RestScanner {
            rows,
            pending: None,
            batch: batch.max(1),
            done: false,
        }
    }

    /// The next batch: up to `max_cells` cells (a row split across batches if need be), at
    /// most `max_rows` rows when given. Empty when the scan is over.
    pub fn next_batch(&mut self, max_rows: Option<usize>, max_cells: usize) -> Result<CellSet> {
        let mut set = CellSet::default();
        let mut room = max_cells.max(1);
        while room > 0 && max_rows.is_none_or(|m| set.rows.len() < m) {
            let (row, mut cells) = match self.pending.take() {
                Some(p) => p,
                None => {
                    if self.done {
                        break;
                    }
                    match self.rows.next() {
                        Some(r) => {
                            let RowResult { row, cells, .. } = r?;
                            (row, cells)
                        }
                        None => {
                            self.done = true;
                            break;
                        }
                    }
                }
            };
            if cells.len() > room {
                let rest = cells.split_off(room);
                self.pending = Some((row.clone(), rest));
            }
            room -= cells.len();
            set.rows.push(RowModel {
                key: Some(row.to_vec()),
                cells: cells.iter().map(CellModel::of).collect(),
            });
        }
        Ok(set)
    }
}

/// A Scanner model as a request sends it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScannerModel {
    pub start_row: Vec<u8>,
    pub end_row: Vec<u8>,
    pub columns: Vec<Vec<u8>>,
    pub batch: Option<i64>,
    pub start_time: Option<i64>,
    pub end_time: Option<i64>,
    pub max_versions: Option<i64>,
    pub filter: Option<String>,
    pub caching: Option<i64>,
    pub cache_blocks: Option<bool>,
    pub limit: Option<i64>,
    pub include_start_row: Option<bool>,
    pub include_stop_row: Option<bool>,
    pub reversed: Option<bool>,
}

fn num(what: &str, v: &str) -> std::result::Result<i64, RestError> {
    v.trim()
        .parse()
        .map_err(|_| RestError::bad_request(format!("scanner {what} {v:?} is not a number")))
}

fn boolean(what: &str, v: &str) -> std::result::Result<bool, RestError> {
    v.trim()
        .parse()
        .map_err(|_| RestError::bad_request(format!("scanner {what} {v:?} is not true or false")))
}

impl ScannerModel {
    /// Sets a field by its name in HBase's model (JSON key or XML attribute).
    fn set(&mut self, key: &str, value: &str) -> std::result::Result<(), RestError> {
        match key {
            "startRow" => self.start_row = unb64("startRow", value)?,
            "endRow" => self.end_row = unb64("endRow", value)?,
            "batch" => self.batch = Some(num(key, value)?),
            "startTime" => self.start_time = Some(num(key, value)?),
            "endTime" => self.end_time = Some(num(key, value)?),
            "maxVersions" => self.max_versions = Some(num(key, value)?),
            "caching" => self.caching = Some(num(key, value)?),
            "limit" => self.limit = Some(num(key, value)?),
            "cacheBlocks" => self.cache_blocks = Some(boolean(key, value)?),
            "includeStartRow" => self.include_start_row = Some(boolean(key, value)?),
            "includeStopRow" => self.include_stop_row = Some(boolean(key, value)?),
            "reversed" => self.reversed = Some(boolean(key, value)?),
            "filter" => self.filter = Some(value.to_owned()),
            // Visibility labels are not supported yet; an empty list is harmless.
            "labels" => {}
            other => {
                return Err(RestError::bad_request(format!(
                    "unknown scanner attribute {other:?}"
                )));
            }
        }
        Ok(())
    }

    pub fn decode(media: Media, body: &[u8]) -> std::result::Result<Self, RestError> {
        let mut model = ScannerModel::default();
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(model);
        }
        match media {
            Media::Json => {
                let doc: Value = serde_json::from_slice(body)
                    .map_err(|e| RestError::bad_request(format!("the Scanner is not JSON: {e}")))?;
                let fields = match doc {
                    Value::Object(fields) => fields,
                    // starbase sends `""` for "no settings".
                    Value::Null => return Ok(model),
                    Value::String(s) if s.is_empty() => return Ok(model),
                    other => {
                        return Err(RestError::bad_request(format!(
                            "the Scanner must be a JSON object, not {other}"
                        )));
                    }
                };
                for (k, v) in fields {
                    match (k.as_str(), v) {
                        ("column", Value::Array(cols)) => {
                            for c in cols {
                                let c = c.as_str().ok_or_else(|| {
                                    RestError::bad_request("a scanner column must be a string")
                                })?;
                                model.columns.push(unb64("a column", c)?);
                            }
                        }
                        ("column", Value::String(c)) => model.columns.push(unb64("a column", &c)?),
                        ("labels", _) => {}
                        (_, Value::Null) => {}
                        (k, Value::String(s)) => model.set(k, &s)?,
                        (k, other) => model.set(k, &other.to_string())?,
                    }
                }
            }
            Media::Xml => {
                let root = xml::parse(body).map_err(RestError::bad_request)?;
                if root.name != "Scanner" {
                    return Err(RestError::bad_request(format!(
                        "expected a <Scanner>, got <{}>",
                        root.name
                    )));
                }
                for (k, v) in &root.attrs {
                    model.set(k, v)?;
                }
                for c in root.children_named("column") {
                    model.columns.push(unb64("a column", &c.text)?);
                }
                if let Some(f) = root.child("filter") {
                    model.filter = Some(f.text.clone());
                }
            }
            m if m.is_protobuf() => {
                let s: pb::Scanner = pb::decode("Scanner", body).map_err(RestError::bad_request)?;
                model.start_row = s.start_row.unwrap_or_default();
                model.end_row = s.end_row.unwrap_or_default();
                model.columns = s.columns;
                model.batch = s.batch.map(i64::from);
                model.start_time = s.start_time;
                model.end_time = s.end_time;
                model.max_versions = s.max_versions.map(i64::from);
                model.filter = s.filter;
                model.caching = s.caching.map(i64::from);
                model.cache_blocks = s.cache_blocks;
            }
            other => {
                return Err(RestError::bad_request(format!(
                    "a Scanner cannot be read as {}",
                    other.content_type()
                )));
            }
        }
        Ok(model)
    }

    /// Cells per batch: the model's, or all of them (HBase's default).
    pub fn batch(&self) -> std::result::Result<usize, RestError> {
        match self.batch {
            None => Ok(i32::MAX as usize),
            Some(b) if b > 0 => Ok(usize::try_from(b).unwrap_or(usize::MAX)),
            Some(b) => Err(RestError::bad_request(format!(
                "scanner batch {b} must be 1 or more"
            ))),
        }
    }

    /// The scan this model describes.
    pub fn scan(&self) -> std::result::Result<Scan, RestError> {
        let mut scan = Scan::new();
        if !self.start_row.is_empty() {
            scan = scan.with_start_row_inclusive(
                self.start_row.clone(),
                self.include_start_row.unwrap_or(true),
            );
        }
        if !self.end_row.is_empty() {
            scan = scan.with_stop_row_inclusive(
                self.end_row.clone(),
                self.include_stop_row.unwrap_or(false),
            );
        }
        for c in &self.columns {
            let c = Column::parse(c)?;
            scan = match c.qualifier {
                Some(q) => scan.add_column(c.family, q),
                None => scan.add_family(c.family),
            };
        }
        if self.start_time.is_some() || self.end_time.is_some() {
            let start = self.start_time.unwrap_or(0);
            let end = self.end_time.unwrap_or(i64::MAX);
            if start < 0 || end < start {
                return Err(RestError::bad_request(format!(
                    "scanner time range {start},{end} is not a range"
                )));
            }
            scan = scan.with_time_range(start, end);
        }
        match self.max_versions {
            None => {}
            Some(v) if v > 0 => {
                scan = scan.read_versions(u32::try_from(v).unwrap_or(u32::MAX));
            }
            Some(v) => {
                return Err(RestError::bad_request(format!(
                    "scanner maxVersions {v} must be 1 or more"
                )));
            }
        }
        if let Some(filter) = self.filter.as_deref().filter(|f| !f.trim().is_empty()) {
            scan = scan.with_filter(parse_json_filter(filter)?);
        }
        if let Some(caching) = self.caching.filter(|&c| c > 0) {
            scan = scan.with_caching(usize::try_from(caching).unwrap_or(usize::MAX));
        }
        if let Some(limit) = self.limit.filter(|&l| l > 0) {
            scan = scan.with_limit(usize::try_from(limit).unwrap_or(usize::MAX));
        }
        if let Some(cache) = self.cache_blocks {
            scan = scan.with_cache_blocks(cache);
        }
        if self.reversed == Some(true) {
            scan = scan.reversed(true);
        }
        Ok(scan)
    }
}

/// `PUT`/`POST /<table>/scanner`: opens a scanner; 201 with its URL in Location.
pub(crate) fn create(
    rest: &crate::Rest,
    r: &crate::routes::Request,
    table: &basalt_client::TableName,
) -> crate::media::RestResult {
    use std::sync::atomic::Ordering;
    let media = if r.body.iter().all(u8::is_ascii_whitespace) {
        Media::Xml
    } else {
        r.body_type()?
    };
    let model = ScannerModel::decode(media, &r.body)?;
    let scan = model.scan()?;
    let batch = model.batch()?;
    crate::routes::require_table(rest.client.as_ref(), table)?;
    let rows = rest.client.clone().scan(table, &scan)?;
    let id = format!(
        "{}{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0),
        rest.next_scanner.fetch_add(1, Ordering::Relaxed)
    );
    rest.scanners
        .insert(id.clone(), RestScanner::new(rows, batch));
    let location = format!(
        "{}/{}/scanner/{id}",
        r.base_url(),
        r.uri.path().split('/').nth(1).unwrap_or("")
    );
    let mut response = crate::media::reply(axum_status::CREATED, Media::Text, "");
    if let Ok(v) = axum_header::HeaderValue::from_str(&location) {
        response.headers_mut().insert(axum_header::LOCATION, v);
    }
    Ok(response)
}

/// `GET /<table>/scanner/<id>[?n=rows]`: the next batch, or 204 when the scan is over.
pub(crate) fn next(
    rest: &crate::Rest,
    r: &crate::routes::Request,
    id: &str,
) -> crate::media::RestResult {
    r.accept(crate::params::SCANNER_NEXT)?;
    let media = crate::media::negotiate(&r.headers, crate::media::DATA)?;
    let max_rows = match r.query("n")? {
        Some(n) => Some(
            n.parse::<usize>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| RestError::bad_request(format!("n={n} must be 1 or more")))?,
        ),
        None => None,
    };
    let Some(entry) = rest.scanners.get(&id.to_owned()) else {
        return Err(RestError::not_found(format!("scanner {id}")));
    };
    let mut scanner = basalt_net::lock_leased(&entry);
    if media == Media::Binary {
        // One cell per call.
        let set = scanner.next_batch(Some(1), 1)?;
        return Ok(
            match set.rows.first().and_then(|r| Some((r, r.cells.first()?))) {
                Some((row, cell)) => {
                    crate::rows::binary_cell(row.key.as_deref().unwrap_or(b""), cell)
                }
                None => (axum_status::NO_CONTENT, "").into_response(),
            },
        );
    }
    let batch = scanner.batch;
    let set = scanner.next_batch(max_rows, batch)?;
    if set.rows.is_empty() {
        return Ok((axum_status::NO_CONTENT, "").into_response());
    }
    Ok(crate::media::reply(
        axum_status::OK,
        media,
        set.encode(media),
    ))
}

/// `DELETE /<table>/scanner/<id>`.
pub(crate) fn delete(rest: &crate::Rest, id: &str) -> crate::media::RestResult {
    if rest.scanners.remove(&id.to_owned()) {
        Ok(crate::media::reply(axum_status::OK, Media::Text, ""))
    } else {
        Err(RestError::not_found(format!("scanner {id}")))
    }
}

/// `GET /<table>/*?startrow=&endrow=&column=&starttime=&endtime=&maxversions=&limit=&...`:
/// a scan in one request (HBase's TableScanResource). `limit` counts rows.
pub(crate) fn stateless(
    rest: &crate::Rest,
    r: &crate::routes::Request,
    table: &basalt_client::TableName,
    pieces: &[&str],
) -> crate::media::RestResult {
    if pieces.len() > 1 && pieces[1..].iter().any(|p| !p.is_empty()) {
        return Err(RestError::bad_request(
            "a scan takes its settings as parameters",
        ));
    }
    let media = crate::media::negotiate(&r.headers, crate::media::MODEL)?;
    let mut scan = Scan::new();
    if let Some(s) = r.query("startrow")? {
        scan = scan.with_start_row_inclusive(
            s.into_bytes(),
            r.query("includeStartRow")?.is_none_or(|v| v != "false"),
        );
    }
    if let Some(e) = r.query("endrow")? {
        scan = scan.with_stop_row_inclusive(
            e.into_bytes(),
            r.query("includeStopRow")?.is_some_and(|v| v == "true"),
        );
    }
    if let Some(prefix) = r.query("prefix")? {
        scan = scan.with_row_prefix(prefix.into_bytes());
    }
    for raw in r.query_all("column") {
        for c in String::from_utf8_lossy(&crate::rowspec::decode(raw)?).split(',') {
            if c.is_empty() {
                continue;
            }
            let c = Column::parse(c.as_bytes())?;
            scan = match c.qualifier {
                Some(q) => scan.add_column(c.family, q),
                None => scan.add_family(c.family),
            };
        }
    }
    let number = |name: &str| -> std::result::Result<Option<i64>, RestError> {
        r.query(name)?.map(|v| num(name, &v)).transpose()
    };
    if number("starttime")?.is_some() || number("endtime")?.is_some() {
        scan = scan.with_time_range(
            number("starttime")?.unwrap_or(0),
            number("endtime")?.unwrap_or(i64::MAX),
        );
    }
    if let Some(v) = number("maxversions")? {
        scan = scan.read_versions(u32::try_from(v.max(1)).unwrap_or(u32::MAX));
    }
    let limit = number("limit")?
        .map(|l| usize::try_from(l.max(0)).unwrap_or(usize::MAX))
        .unwrap_or(usize::MAX);
    if r.query("reversed")?.is_some_and(|v| v == "true") {
        scan = scan.reversed(true);
    }
    // Cells per row result (HBase's `batchsize`): a wider row comes as several rows.
    if let Some(batch) = number("batchsize")?.filter(|b| *b > 0) {
        scan = scan.with_batch(usize::try_from(batch).unwrap_or(usize::MAX));
    }
    if let Some(cache) = r.query("cacheblocks")? {
        scan = scan.with_cache_blocks(boolean("cacheblocks", &cache)?);
    }
    match (r.query("filter")?, r.query("filter_b64")?) {
        (Some(f), _) => scan = scan.with_filter(basalt_client::parse_filter(&f)?),
        (None, Some(b)) => {
            let f = unb64("filter_b64", &b)?;
            scan = scan.with_filter(basalt_client::parse_filter(&String::from_utf8_lossy(&f))?);
        }
        (None, None) => {}
    }
    crate::routes::require_table(rest.client.as_ref(), table)?;
    let rows: Vec<RowResult> = rest
        .client
        .clone()
        .scan(table, &scan)?
        .take(limit)
        .collect::<Result<_>>()?;
    let set = CellSet::of_rows(&rows);
    Ok(crate::media::reply(
        axum_status::OK,
        media,
        set.encode(media),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_scanner_model_in_each_form() {
        let xml = br#"<Scanner batch="2" startRow="YQ==" endRow="Yw=="><column>Y2Y6YQ==</column><filter>{"type":"KeyOnlyFilter"}</filter></Scanner>"#;
        let m = ScannerModel::decode(Media::Xml, xml).expect("xml");
        assert_eq!(m.batch, Some(2));
        assert_eq!(m.start_row, b"a");
        assert_eq!(m.columns, vec![b"cf:a".to_vec()]);
        assert!(m.scan().is_ok());
        let json = br#"{"batch":2,"startRow":"YQ==","endRow":"Yw==","column":["Y2Y6YQ=="],"filter":"{\"type\":\"KeyOnlyFilter\"}"}"#;
        assert_eq!(ScannerModel::decode(Media::Json, json).expect("json"), m);
        let pb = pb::encode(&pb::Scanner {
            start_row: Some(b"a".to_vec()),
            end_row: Some(b"c".to_vec()),
            columns: vec![b"cf:a".to_vec()],
            batch: Some(2),
            filter: Some(r#"{"type":"KeyOnlyFilter"}"#.into()),
            ..pb::Scanner::default()
        });
        assert_eq!(ScannerModel::decode(Media::Protobuf, &pb).expect("pb"), m);
        assert_eq!(
            ScannerModel::decode(Media::Json, b"\"\"").expect("empty"),
            ScannerModel::default()
        );
    }

    #[test]
    fn bad_models_are_bad_requests() {
        for (media, body) in [
            (Media::Xml, &br#"<Scanner batch="x"/>"#[..]),
            (Media::Xml, br#"<Scanner startRow="%%"/>"#),
            (Media::Json, br#"{"nonsense":1}"#),
            (Media::Json, br#"[1]"#),
        ] {
            let err = ScannerModel::decode(media, body).expect_err("rejected");
            assert_eq!(err.status.as_u16(), 400, "{body:?}");
        }
        let m = ScannerModel::decode(Media::Json, br#"{"filter":"{\"type\":\"Nope\"}"}"#)
            .expect("parses");
        assert_eq!(m.scan().expect_err("bad filter").status.as_u16(), 400);
    }
}
