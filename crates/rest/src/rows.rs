//! Rows and cells: `GET`, `PUT`/`POST` and `DELETE` on `/<table>/<row spec>`, check-and-put
//! and check-and-delete (`?check=put|delete`), and multi-get.

use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use basalt_client::{
    Bytes, CheckAction, CheckAndMutate, CompareOperator, Condition, Delete, Get, LATEST_TIMESTAMP,
    Put, RowResult, TableName, parse_filter,
};
use basalt_net::http::axum;

use crate::cellset::{CellModel, CellSet, b64};
use crate::media::{self, Media, RestError, RestResult, negotiate, reply};
use crate::routes::{Request, require_table};
use crate::rowspec::{Column, RowSpec};
use crate::{Rest, params, scanners};

/// The most rows a range or prefix read returns at once; a client wanting more uses a scanner.
const MAX_ROWS: usize = 100_000;

pub fn row(rest: &Rest, r: &Request, table: &TableName, pieces: &[&str]) -> RestResult {
    // `/<table>/*?startrow=...`: a stateless scan.
    if pieces.first() == Some(&"*") && r.method == axum::http::Method::GET {
        r.accept(params::SCAN)?;
        return scanners::stateless(rest, r, table, pieces);
    }
    r.accept(match r.method {
        axum::http::Method::GET => params::ROW_GET,
        axum::http::Method::PUT | axum::http::Method::POST => params::ROW_WRITE,
        _ => &[],
    })?;
    let versions = r.query("v")?;
    let spec = RowSpec::parse(pieces, versions.as_deref())?;
    match r.method {
        axum::http::Method::GET => get(rest, r, table, &spec),
        axum::http::Method::PUT | axum::http::Method::POST => match r.query("check")?.as_deref() {
            None => put(rest, r, table, &spec),
            Some("put") => check_and_put(rest, r, table, &spec),
            Some("delete") => check_and_delete(rest, r, table, &spec),
            Some("append") => read_modify_write(rest, r, table, &spec, false),
            Some("increment") => read_modify_write(rest, r, table, &spec, true),
            Some(other) => Err(RestError::bad_request(format!(
                "check={other} is not put, delete, append or increment"
            ))),
        },
        axum::http::Method::DELETE => delete(rest, table, &spec),
        _ => Err(RestError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("Method not allowed: {}", r.method),
        )),
    }
}

fn get(rest: &Rest, r: &Request, table: &TableName, spec: &RowSpec) -> RestResult {
    let media = negotiate(&r.headers, media::DATA)?;
    require_table(rest.client.as_ref(), table)?;
    let rows: Vec<RowResult> = if spec.is_scan() {
        let scanner = rest.client.clone().scan(table, &spec.scan())?;
        scanner
            .take(MAX_ROWS)
            .collect::<basalt_client::Result<_>>()?
    } else {
        vec![rest.client.get(table, &spec.get())?]
    };
    let set = CellSet::of_rows(&rows);
    if set.rows.is_empty() {
        return Err(RestError::not_found("no matching row or cells"));
    }
    if media == Media::Binary {
        let cell = &rows
            .iter()
            .find(|r| !r.is_empty())
            .and_then(|r| r.cells.first())
            .ok_or_else(|| RestError::not_found("no matching cell"))?;
        return Ok(binary_cell(cell.row(), &CellModel::of(cell)));
    }
    Ok(reply(StatusCode::OK, media, set.encode(media)))
}

/// One cell as a raw value, its coordinates in headers (HBase's binary representation):
/// `X-Row` and `X-Column` base64, `X-Timestamp`.
pub fn binary_cell(row: &[u8], cell: &CellModel) -> Response {
    let mut response = reply(StatusCode::OK, Media::Binary, cell.value.clone());
    let headers = response.headers_mut();
    let mut set = |name: &'static str, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    };
    set("X-Row", b64(row));
    set("X-Column", b64(cell.column.as_deref().unwrap_or(b"")));
    if let Some(ts) = cell.timestamp {
        set("X-Timestamp", ts.to_string());
    }
    response
}

fn header(r: &Request, name: &str) -> Option<String> {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// The puts a write request carries: its CellSet's rows, or (binary) one value.
fn puts(r: &Request, spec: &RowSpec) -> Result<Vec<Put>, RestError> {
    let media = r.body_type()?;
    let default_ts = spec.timestamp.unwrap_or(LATEST_TIMESTAMP);
    let column_of_spec = || -> Option<Vec<u8>> {
        spec.columns.first().map(|c| {
            let mut col = c.family.to_vec();
            col.push(b':');
            col.extend_from_slice(c.qualifier.as_deref().unwrap_or(b""));
            col
        })
    };
    if media == Media::Binary {
        let row = header(r, "X-Row")
            .map(|h| h.into_bytes())
            .unwrap_or_else(|| spec.row.to_vec());
        let column = match header(r, "X-Column") {
            Some(h) => crate::cellset::unb64("X-Column", &h)
                .ok()
                .filter(|c| c.contains(&b':'))
                .unwrap_or_else(|| h.into_bytes()),
            None => column_of_spec()
                .ok_or_else(|| RestError::bad_request("a binary value needs a column"))?,
        };
        let ts = match header(r, "X-Timestamp") {
            Some(t) => t.parse().map_err(|_| {
                RestError::bad_request(format!("X-Timestamp {t:?} is not a number"))
            })?,
            None => default_ts,
        };
        let (family, qualifier) = split_column(&column)?;
        return Ok(vec![Put::new(row).add_column_at(
            family,
            qualifier,
            ts,
            r.body.to_vec(),
        )]);
    }
    let set = CellSet::decode(media, &r.body)?;
    if set.rows.is_empty() {
        return Err(RestError::bad_request("the CellSet has no rows"));
    }
    let mut puts = Vec::with_capacity(set.rows.len());
    for row in set.rows {
        let key = row
            .key
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| spec.row.to_vec());
        if key.is_empty() {
            return Err(RestError::bad_request("a row has no key"));
        }
        let mut put = Put::new(key);
        for cell in row.cells {
            let column = cell
                .column
                .or_else(column_of_spec)
                .ok_or_else(|| RestError::bad_request("a cell has no column"))?;
            let (family, qualifier) = split_column(&column)?;
            put = put.add_column_at(
                family,
                qualifier,
                cell.timestamp.unwrap_or(default_ts),
                cell.value,
            );
        }
        puts.push(put);
    }
    Ok(puts)
}

/// `family:qualifier` (the qualifier may be empty, the colon may not be missing).
fn split_column(column: &[u8]) -> Result<(Bytes, Bytes), RestError> {
    let colon = column.iter().position(|&b| b == b':').ok_or_else(|| {
        RestError::bad_request(format!(
            "column {:?} is not family:qualifier",
            String::from_utf8_lossy(column)
        ))
    })?;
    if colon == 0 {
        return Err(RestError::bad_request("a column has an empty family"));
    }
    Ok((
        Bytes::copy_from_slice(&column[..colon]),
        Bytes::copy_from_slice(&column[colon + 1..]),
    ))
}

fn put(rest: &Rest, r: &Request, table: &TableName, spec: &RowSpec) -> RestResult {
    let puts = puts(r, spec)?;
    require_table(rest.client.as_ref(), table)?;
    if puts.iter().any(|p| p.cells.is_empty()) {
        return Err(RestError::bad_request("a row has no cells"));
    }
    let ops: Vec<basalt_client::BatchOp> =
        puts.into_iter().map(basalt_client::BatchOp::Put).collect();
    for outcome in rest.client.batch(table, &ops) {
        outcome?;
    }
    Ok(reply(StatusCode::OK, Media::Text, ""))
}

fn delete(rest: &Rest, table: &TableName, spec: &RowSpec) -> RestResult {
    require_table(rest.client.as_ref(), table)?;
    let mut delete = Delete::new(spec.row.clone());
    if let Some(ts) = spec.timestamp {
        delete = delete.with_timestamp(ts);
    }
    for Column { family, qualifier } in &spec.columns {
        delete = match (qualifier, spec.timestamp) {
            (None, None) => delete.add_family(family.clone()),
            (None, Some(ts)) => delete.add_family_at(family.clone(), ts),
            (Some(q), None) => delete.add_columns(family.clone(), q.clone()),
            (Some(q), Some(ts)) => delete.add_columns_at(family.clone(), q.clone(), ts),
        };
    }
    rest.client.delete(table, &delete)?;
    Ok(reply(StatusCode::OK, Media::Text, ""))
}

/// The one row of a check request and its check cell (the last): `(row, column, value, the
/// other cells)`.
type CheckRequest = (Bytes, (Bytes, Bytes), Vec<u8>, Put);

fn check_request(r: &Request, spec: &RowSpec, min_cells: usize) -> Result<CheckRequest, RestError> {
    let mut puts = puts(r, spec)?;
    if puts.len() != 1 {
        return Err(RestError::bad_request("a check names exactly one row"));
    }
    let mut put = puts.remove(0);
    if put.cells.len() < min_cells {
        return Err(RestError::bad_request(format!(
            "a check needs at least {min_cells} cells: the last is the value to check"
        )));
    }
    let check = put
        .cells
        .pop()
        .ok_or_else(|| RestError::bad_request("no check cell"))?;
    Ok((
        put.row.clone(),
        (check.family.clone(), check.qualifier.clone()),
        check.value.to_vec(),
        put,
    ))
}

fn check(
    rest: &Rest,
    table: &TableName,
    row: Bytes,
    column: (Bytes, Bytes),
    expected: Vec<u8>,
    action: CheckAction,
) -> RestResult {
    let condition = Condition::matches(column.0, column.1, CompareOperator::Equal, expected);
    let cam = CheckAndMutate::new(row, condition, action);
    let outcome = rest.client.check_and_mutate(table, &cam)?;
    if outcome.success {
        Ok(reply(StatusCode::OK, Media::Text, ""))
    } else {
        Ok((StatusCode::NOT_MODIFIED, "").into_response())
    }
}

/// `?check=put`: the cells but the last are written if the last cell's column holds its value;
/// the checked column must be among those written. 304 when the check fails.
fn check_and_put(rest: &Rest, r: &Request, table: &TableName, spec: &RowSpec) -> RestResult {
    let (row, column, expected, put) = check_request(r, spec, 2)?;
    if !put
        .cells
        .iter()
        .any(|c| c.family == column.0 && c.qualifier == column.1)
    {
        return Err(RestError::bad_request(
            "the column to put and the column to check do not match",
        ));
    }
    require_table(rest.client.as_ref(), table)?;
    check(rest, table, row, column, expected, CheckAction::Put(put))
}

/// `?check=delete`: if the last cell's column holds its value, deletes the other cells'
/// columns, or the row spec's columns, or (neither) the checked column's newest version.
fn check_and_delete(rest: &Rest, r: &Request, table: &TableName, spec: &RowSpec) -> RestResult {
    let (row, column, expected, others) = check_request(r, spec, 1)?;
    let mut delete = Delete::new(row.clone());
    if !others.cells.is_empty() {
        for c in &others.cells {
            delete = delete.add_columns(c.family.clone(), c.qualifier.clone());
        }
    } else if !spec.columns.is_empty() {
        for Column { family, qualifier } in &spec.columns {
            delete = match qualifier {
                Some(q) => delete.add_columns(family.clone(), q.clone()),
                None => delete.add_family(family.clone()),
            };
        }
    } else {
        delete = delete.add_column(column.0.clone(), column.1.clone());
    }
    require_table(rest.client.as_ref(), table)?;
    check(
        rest,
        table,
        row,
        column,
        expected,
        CheckAction::Delete(delete),
    )
}

/// `?check=append` and `?check=increment` (HBase 2.5's): the CellSet's one row appends its
/// cells' values, or adds them (decimal text, as HBase reads them) to 8-byte counters. With
/// `?returnResult=true` the new cells come back as a CellSet.
fn read_modify_write(
    rest: &Rest,
    r: &Request,
    table: &TableName,
    spec: &RowSpec,
    increment: bool,
) -> RestResult {
    let mut puts = puts(r, spec)?;
    if puts.len() != 1 {
        return Err(RestError::bad_request("Number of rows specified is not 1"));
    }
    let put = puts.remove(0);
    if put.cells.is_empty() {
        return Err(RestError::bad_request("no cells to apply"));
    }
    require_table(rest.client.as_ref(), table)?;
    let result = if increment {
        let mut inc = basalt_client::Increment::new(put.row.clone());
        for c in &put.cells {
            let text = String::from_utf8_lossy(&c.value);
            let amount: i64 = text.trim().parse().map_err(|_| {
                RestError::bad_request(format!("increment amount {text:?} is not a whole number"))
            })?;
            inc = inc.add_column(c.family.clone(), c.qualifier.clone(), amount);
        }
        rest.client.increment(table, &inc)?
    } else {
        let mut append = basalt_client::Append::new(put.row.clone());
        for c in &put.cells {
            append = append.add_column(c.family.clone(), c.qualifier.clone(), c.value.clone());
        }
        rest.client.append(table, &append)?
    };
    if r.query("returnResult")?.as_deref() != Some("true") {
        return Ok(reply(StatusCode::OK, Media::Text, ""));
    }
    let media = negotiate(&r.headers, media::MODEL)?;
    Ok(reply(
        StatusCode::OK,
        media,
        CellSet::of_rows(&[result]).encode(media),
    ))
}

/// `GET /<table>/multiget[/<columns>]?row=r1&row=r2/cf:q&v=N`: the rows that exist.
pub fn multiget(rest: &Rest, r: &Request, table: &TableName, columns: Option<&str>) -> RestResult {
    r.accept(params::MULTIGET)?;
    let media = negotiate(&r.headers, media::MODEL)?;
    let versions = r.query("v")?;
    let filter = match (r.query("filter")?, r.query("filter_b64")?) {
        (Some(f), _) => Some(parse_filter(&f)?),
        (None, Some(b)) => {
            let text = crate::cellset::unb64("filter_b64", &b)?;
            Some(parse_filter(&String::from_utf8_lossy(&text))?)
        }
        (None, None) => None,
    };
    let rows = r.query_all("row");
    if rows.is_empty() {
        return Err(RestError::bad_request("multiget needs at least one row="));
    }
    require_table(rest.client.as_ref(), table)?;
    let mut results = Vec::new();
    for raw in rows {
        let raw = raw.replace('+', " ");
        // Each `row=` is a row spec of its own; path-level columns apply to rows naming none.
        let mut pieces: Vec<String> = raw.split('/').map(str::to_owned).collect();
        if pieces.len() == 1
            && let Some(c) = columns
        {
            pieces.push(c.to_owned());
        }
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let spec = RowSpec::parse(&pieces, versions.as_deref())?;
        let mut get: Get = spec.get();
        if let Some(f) = &filter {
            get = get.with_filter(f.clone());
        }
        let result = rest.client.get(table, &get)?;
        if !result.is_empty() {
            results.push(result);
        }
    }
    if results.is_empty() {
        return Err(RestError::not_found("none of the rows exist"));
    }
    let set = CellSet::of_rows(&results);
    Ok(reply(StatusCode::OK, media, set.encode(media)))
}
