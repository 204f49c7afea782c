//! Dispatch: HBase's REST paths onto their handlers. Paths are matched by hand (as HBase's
//! `RowSpec` reads them), since a row path's pieces may hold commas, globs and escapes.

use basalt_client::prelude::*;
use std::sync::Arc;

use axum::body::Bytes as Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use basalt_client::{Client, NamespaceDescriptor, TableName};
use basalt_net::http::{axum, blocking};

use crate::media::{self, Media, RestError, RestResult, negotiate, reply};
use crate::rowspec::decode;
use crate::schema::{self, SchemaModel};
use crate::{Rest, models, rows, scanners};

pub fn router(rest: Arc<Rest>) -> axum::Router {
    let limit = rest.config.max_body;
    axum::Router::new()
        .fallback(handle)
        .layer(DefaultBodyLimit::max(limit))
        .with_state(rest)
}

/// One request, as the handlers see it.
#[derive(Debug)]
pub struct Request {
    pub method: Method,
    pub uri: Uri,
    pub headers: HeaderMap,
    pub body: Body,
}

impl Request {
    /// The raw (still percent-encoded) values of query parameter `name`.
    pub fn query_all(&self, name: &str) -> Vec<&str> {
        basalt_net::http::query_values(self.uri.query().unwrap_or(""), name)
    }

    /// The decoded value of query parameter `name` (its first).
    pub fn query(&self, name: &str) -> Result<Option<String>, RestError> {
        match self.query_all(name).first() {
            None => Ok(None),
            Some(v) => {
                let v = decode(&v.replace('+', " "))?;
                String::from_utf8(v)
                    .map(Some)
                    .map_err(|_| RestError::bad_request(format!("parameter {name} is not UTF-8")))
            }
        }
    }

    pub fn is_write(&self) -> bool {
        !matches!(self.method, Method::GET | Method::HEAD | Method::OPTIONS)
    }

    /// The body's representation.
    pub fn body_type(&self) -> Result<Media, RestError> {
        media::body_type(&self.headers, &self.body)
    }

    /// `http://<host>` as the client reached this server.
    pub fn base_url(&self) -> String {
        let host = self
            .headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        format!("http://{host}")
    }
}

async fn handle(
    State(rest): State<Arc<Rest>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let request = Request {
        method,
        uri,
        headers,
        body,
    };
    match blocking(move || route(&rest, &request)).await {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => e.into_response(),
        Err(e) => RestError::new(StatusCode::INTERNAL_SERVER_ERROR, e).into_response(),
    }
}

fn method_not_allowed(r: &Request) -> RestError {
    RestError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        format!("Method not allowed: {} {}", r.method, r.uri.path()),
    )
}

/// Fails with 404 unless the table exists (a read of a missing row must say "row", a read
/// of a missing table "table").
pub(crate) fn require_table(client: &dyn Client, table: &TableName) -> Result<(), RestError> {
    if client.table_exists(table)? {
        Ok(())
    } else {
        Err(basalt_client::Error::TableNotFound(table.clone()).into())
    }
}

/// A table named in a path piece (`t`, `ns:t`, percent-encoded).
pub fn table_name(piece: &str) -> Result<TableName, RestError> {
    let name = String::from_utf8(decode(piece)?)
        .map_err(|_| RestError::bad_request("a table name is not UTF-8"))?;
    TableName::parse(&name).map_err(RestError::from)
}

fn route(rest: &Rest, r: &Request) -> RestResult {
    if rest.config.read_only && r.is_write() {
        return Err(RestError::new(
            StatusCode::FORBIDDEN,
            "Forbidden: this REST server is read-only",
        ));
    }
    let path = r.uri.path().trim_start_matches('/');
    let pieces: Vec<&str> = if path.is_empty() {
        Vec::new()
    } else {
        path.split('/').collect()
    };
    let get = r.method == Method::GET;
    // The resources that take query parameters check them themselves; the others take none.
    let takes_parameters = match pieces.as_slice() {
        ["version" | "status" | "namespaces", ..] => false,
        [_, "scanner", id] => get && !id.is_empty(),
        [_, "multiget", ..] => true,
        [_, "schema" | "regions" | "exists" | "scanner"] => false,
        [_, row @ ..] => !row.is_empty(),
        _ => false,
    };
    if !takes_parameters {
        r.accept(&[])?;
    }
    match pieces.as_slice() {
        [] | [""] if get => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            let names: Vec<String> = rest
                .client
                .table_names()?
                .iter()
                .map(ToString::to_string)
                .collect();
            Ok(reply(
                StatusCode::OK,
                media,
                models::table_list(&names, media),
            ))
        }
        ["version"] | ["version", "rest"] if get => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            Ok(reply(StatusCode::OK, media, models::version(media)))
        }
        ["version", "cluster"] if get => {
            let media = negotiate(&r.headers, &[Media::Text, Media::Xml, Media::Json])?;
            Ok(reply(StatusCode::OK, media, models::cluster_version(media)))
        }
        ["status", "cluster"] if get => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            let summary = rest.client.cluster_summary()?;
            Ok(reply(
                StatusCode::OK,
                media,
                models::cluster_status(&summary, media),
            ))
        }
        ["namespaces"] | ["namespaces", ""] if get => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            let names: Vec<String> = rest
                .client
                .namespaces()?
                .into_iter()
                .map(|n| n.name)
                .collect();
            Ok(reply(
                StatusCode::OK,
                media,
                models::namespaces(&names, media),
            ))
        }
        ["namespaces", ns] => namespace(rest, r, ns),
        ["namespaces", ns, "tables"] if get => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            let ns = String::from_utf8_lossy(&decode(ns)?).into_owned();
            rest.client.namespace(&ns)?;
            let names: Vec<String> = rest
                .client
                .table_names()?
                .iter()
                .filter(|t| t.namespace() == ns)
                .map(|t| t.qualifier().to_owned())
                .collect();
            Ok(reply(
                StatusCode::OK,
                media,
                models::table_list(&names, media),
            ))
        }
        [table, "schema"] => table_schema(rest, r, &table_name(table)?),
        [table, "regions"] if get => {
            // No text form: TableInfo is XML, JSON or protobuf.
            let media = negotiate(&r.headers, media::MODEL)?;
            let name = table_name(table)?;
            require_table(rest.client.as_ref(), &name)?;
            let regions = rest.client.regions(&name)?;
            let body =
                models::table_info(&name.to_string(), &regions, &rest.config.server_name, media);
            Ok(reply(StatusCode::OK, media, body))
        }
        [table, "exists"] if get => {
            let name = table_name(table)?;
            require_table(rest.client.as_ref(), &name)?;
            Ok(reply(StatusCode::OK, Media::Text, ""))
        }
        [table, "scanner"] | [table, "scanner", ""] => match r.method {
            Method::PUT | Method::POST => scanners::create(rest, r, &table_name(table)?),
            _ => Err(method_not_allowed(r)),
        },
        [_, "scanner", id] => match r.method {
            Method::GET => scanners::next(rest, r, id),
            Method::DELETE => {
                r.accept(&[])?;
                scanners::delete(rest, id)
            }
            _ => Err(method_not_allowed(r)),
        },
        // `op` tells the aggregation endpoint from a row named `aggregate`.
        [table, "aggregate"] if get && !r.query_all("op").is_empty() => {
            crate::aggregate::aggregate(rest, r, &table_name(table)?)
        }
        [table, "multiget", columns @ ..] if get => {
            rows::multiget(rest, r, &table_name(table)?, columns.first().copied())
        }
        [table, row @ ..] if !row.is_empty() => rows::row(rest, r, &table_name(table)?, row),
        _ => Err(method_not_allowed(r)),
    }
}

fn namespace(rest: &Rest, r: &Request, ns: &str) -> RestResult {
    let name = String::from_utf8(decode(ns)?)
        .map_err(|_| RestError::bad_request("a namespace name is not UTF-8"))?;
    let exists = rest.client.namespaces()?.iter().any(|n| n.name == name);
    match r.method {
        Method::GET => {
            let media = negotiate(&r.headers, media::DESCRIPTIVE)?;
            let ns = rest.client.namespace(&name)?;
            Ok(reply(
                StatusCode::OK,
                media,
                models::namespace_properties(&ns, media),
            ))
        }
        Method::POST | Method::PUT => {
            let update = r.method == Method::PUT;
            if exists && !update {
                return Err(RestError::new(
                    StatusCode::FORBIDDEN,
                    format!("Forbidden: namespace {name} already exists"),
                ));
            }
            if !exists && update {
                return Err(RestError::new(
                    StatusCode::FORBIDDEN,
                    format!("Forbidden: namespace {name} does not exist"),
                ));
            }
            let media = if r.body.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some(r.body_type()?)
            };
            let mut descriptor = NamespaceDescriptor::new(&name);
            for (k, v) in models::parse_namespace_properties(media, &r.body)? {
                descriptor = descriptor.with_configuration(&k, &v);
            }
            if update {
                rest.client.modify_namespace(descriptor)?;
            } else {
                rest.client.create_namespace(descriptor)?;
            }
            Ok(reply(StatusCode::CREATED, Media::Text, ""))
        }
        Method::DELETE => {
            if !exists {
                return Err(RestError::not_found(format!("namespace {name}")));
            }
            rest.client.delete_namespace(&name)?;
            Ok(reply(StatusCode::OK, Media::Text, ""))
        }
        _ => Err(method_not_allowed(r)),
    }
}

fn table_schema(rest: &Rest, r: &Request, name: &TableName) -> RestResult {
    let client = &rest.client;
    match r.method {
        Method::GET => {
            let media = negotiate(&r.headers, media::MODEL)?;
            let descriptor = client.describe_table(name)?;
            Ok(reply(
                StatusCode::OK,
                media,
                schema::encode(&descriptor, media),
            ))
        }
        Method::PUT | Method::POST => {
            let model = SchemaModel::decode(r.body_type()?, &r.body)?;
            if !client.table_exists(name)? {
                client.create_table(model.descriptor(name)?, &[])?;
                return Ok(reply(StatusCode::CREATED, Media::Text, ""));
            }
            let current = client.describe_table(name)?;
            let descriptor = if r.method == Method::PUT {
                // Replace: the model's families and attributes, nothing else.
                model.descriptor(name)?
            } else {
                // Update: the model's families added or changed, the rest kept.
                let mut d = current.clone();
                for (k, v) in &model.attrs {
                    d.set_attribute(k, v).map_err(RestError::from)?;
                }
                for family in model.family_descriptors(Some(&current))? {
                    d.remove_family(&family.name);
                    d.add_family(family);
                }
                d
            };
            client.modify_table(descriptor)?;
            Ok(reply(StatusCode::OK, Media::Text, ""))
        }
        Method::DELETE => {
            if client.is_table_enabled(name)? {
                client.disable_table(name)?;
            }
            client.delete_table(name)?;
            Ok(reply(StatusCode::OK, Media::Text, ""))
        }
        _ => Err(method_not_allowed(r)),
    }
}
