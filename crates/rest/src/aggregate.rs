//! `GET /<table>/aggregate?column=f:q&op=SUM`: the aggregation endpoint (Basalt's resource;
//! HBase's REST server has none), each region computing its part where it is served
//! (`docs/design/aggregation.md`). The answer is the value: plain text (`43`, empty when no
//! value was found), or JSON `{"op":"SUM","value":43}` (`null`).

use basalt_client::aggregate::{Aggregation, Interpreter, Number};
use basalt_client::{Bytes, Scan, TableName};
use basalt_net::http::axum::http::StatusCode;
use serde_json::json;
use std::sync::Arc;

use crate::cellset::unb64;
use crate::media::{Media, RestError, RestResult, negotiate, reply};
use crate::routes::{Request, require_table};
use crate::{Rest, params};

/// `family` or `family:qualifier`.
fn column(text: &str) -> (Bytes, Option<Bytes>) {
    match text.split_once(':') {
        Some((f, q)) => (
            Bytes::copy_from_slice(f.as_bytes()),
            Some(Bytes::copy_from_slice(q.as_bytes())),
        ),
        None => (Bytes::copy_from_slice(text.as_bytes()), None),
    }
}

pub fn aggregate(rest: &Rest, r: &Request, table: &TableName) -> RestResult {
    r.accept(params::AGGREGATE)?;
    let media = negotiate(&r.headers, &[Media::Text, Media::Json])?;
    let required = |name: &str| {
        r.query(name)?
            .ok_or_else(|| RestError::bad_request(format!("aggregate needs the parameter {name}")))
    };
    let what = Aggregation::from_name(&required("op")?)?;
    let interpreter = match r.query("interpreter")?.as_deref() {
        None => Interpreter::Long,
        Some(i) if i.eq_ignore_ascii_case("long") => Interpreter::Long,
        Some(i) if i.eq_ignore_ascii_case("double") => Interpreter::Double,
        Some(i) => Interpreter::from_class(i)?,
    };
    let mut scan = Scan::new();
    scan = match column(&required("column")?) {
        (family, None) => scan.add_family(family),
        (family, Some(q)) => scan.add_column(family, q),
    };
    if let Some(weight) = r.query("weight")? {
        let (family, Some(q)) = column(&weight) else {
            return Err(RestError::bad_request(
                "weight is a column, family:qualifier",
            ));
        };
        scan = scan.add_column(family, q);
    }
    if let Some(start) = r.query("startrow")? {
        scan = scan.with_start_row(Bytes::from(start));
    }
    if let Some(end) = r.query("endrow")? {
        scan = scan.with_stop_row(Bytes::from(end));
    }
    if let Some(prefix) = r.query("prefix")? {
        scan = scan.with_row_prefix(Bytes::from(prefix));
    }
    match (r.query("filter")?, r.query("filter_b64")?) {
        (Some(f), _) => scan = scan.with_filter(basalt_client::parse_filter(&f)?),
        (None, Some(b)) => {
            let f = String::from_utf8(unb64("filter_b64", &b)?)
                .map_err(|_| RestError::bad_request("filter_b64 is not UTF-8"))?;
            scan = scan.with_filter(basalt_client::parse_filter(&f)?);
        }
        (None, None) => {}
    }
    require_table(rest.client.as_ref(), table)?;
    let value = Arc::clone(&rest.client).aggregate(table, &scan, interpreter, what)?;
    let text = match value {
        None => String::new(),
        Some(Number::Long(v)) => v.to_string(),
        Some(Number::Double(v)) => v.to_string(),
    };
    let body = match media {
        Media::Json => {
            let value = match value {
                None => serde_json::Value::Null,
                Some(Number::Long(v)) => json!(v),
                Some(Number::Double(v)) => json!(v),
            };
            serde_json::to_vec(&json!({ "op": what.method().trim_start_matches("Get").to_ascii_uppercase(), "value": value }))
                .unwrap_or_default()
        }
        _ => format!("{text}\n").into_bytes(),
    };
    Ok(reply(StatusCode::OK, media, body))
}
