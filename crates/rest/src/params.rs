//! The query parameters each REST resource takes. A request carrying any other is answered
//! 400 naming it, never served as if it were absent (issue 49). `docs/design/rest.md` lists
//! them ("Query parameters"), and `tests/rest.rs` checks the list there against [`ALL`].

use crate::media::RestError;
use crate::routes::Request;

/// `GET /<table>/<row>[/<column>[/<timestamp>]]`: versions.
pub const ROW_GET: &[&str] = &["v"];
/// `PUT|POST /<table>/<row>...`: check-and-mutate, increment and append, and whether they
/// answer with the result.
pub const ROW_WRITE: &[&str] = &["check", "returnResult"];
/// `GET /<table>/multiget`: the rows, versions, a filter.
pub const MULTIGET: &[&str] = &["row", "v", "filter", "filter_b64"];
/// `GET /<table>/*`: a stateless scan.
pub const SCAN: &[&str] = &[
    "startrow",
    "endrow",
    "includeStartRow",
    "includeStopRow",
    "prefix",
    "column",
    "starttime",
    "endtime",
    "maxversions",
    "batchsize",
    "limit",
    "reversed",
    "cacheblocks",
    "filter",
    "filter_b64",
];
/// `GET /<table>/scanner/<id>`: how many rows.
pub const SCANNER_NEXT: &[&str] = &["n"];

/// `GET /<table>/aggregate`: the aggregation endpoint (`docs/design/aggregation.md`).
pub const AGGREGATE: &[&str] = &[
    "column",
    "op",
    "interpreter",
    "weight",
    "startrow",
    "endrow",
    "prefix",
    "filter",
    "filter_b64",
];

/// Every resource that takes parameters, as `docs/design/rest.md` names it; every other
/// resource takes none.
pub const ALL: &[(&str, &[&str])] = &[
    ("GET /<table>/<row>", ROW_GET),
    ("PUT or POST /<table>/<row>", ROW_WRITE),
    ("GET /<table>/multiget", MULTIGET),
    ("GET /<table>/*", SCAN),
    ("GET /<table>/scanner/<id>", SCANNER_NEXT),
    ("GET /<table>/aggregate", AGGREGATE),
];

impl Request {
    /// Fails with 400 naming the first query parameter not in `taken`.
    pub fn accept(&self, taken: &[&str]) -> Result<(), RestError> {
        let query = self.uri.query().unwrap_or("");
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let name = pair.split('=').next().unwrap_or(pair);
            if !taken.contains(&name) {
                let takes = if taken.is_empty() {
                    "it takes none".to_owned()
                } else {
                    format!("it takes {}", taken.join(", "))
                };
                return Err(RestError::bad_request(format!(
                    "query parameter {name:?} is not one this resource serves ({takes})"
                )));
            }
        }
        Ok(())
    }
}
