//! Content types (HBase's REST media types), their negotiation, and errors as HTTP answers.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use basalt_client::{Error, ErrorKind};
use basalt_net::http::axum;

/// A representation HBase's REST server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Media {
    Text,
    Xml,
    Json,
    /// `application/x-protobuf`.
    Protobuf,
    /// `application/protobuf` (the IETF name; same bytes).
    ProtobufIetf,
    /// `application/octet-stream`: one raw value.
    Binary,
}

/// What data resources offer, the first being the default (HBase's Jersey picks XML).
pub const DATA: &[Media] = &[
    Media::Xml,
    Media::Json,
    Media::Protobuf,
    Media::ProtobufIetf,
    Media::Binary,
];
/// What descriptive resources (table list, version, status) offer.
pub const DESCRIPTIVE: &[Media] = &[
    Media::Text,
    Media::Xml,
    Media::Json,
    Media::Protobuf,
    Media::ProtobufIetf,
];
/// What model resources without a text form offer (schema, regions, namespaces).
pub const MODEL: &[Media] = &[
    Media::Xml,
    Media::Json,
    Media::Protobuf,
    Media::ProtobufIetf,
];

impl Media {
    pub fn content_type(self) -> &'static str {
        match self {
            Media::Text => "text/plain",
            Media::Xml => "text/xml",
            Media::Json => "application/json",
            Media::Protobuf => "application/x-protobuf",
            Media::ProtobufIetf => "application/protobuf",
            Media::Binary => "application/octet-stream",
        }
    }

    /// The type a header names (parameters such as `charset` ignored).
    pub fn parse(value: &str) -> Option<Media> {
        let essence = value.split(';').next().unwrap_or("").trim();
        Some(match essence.to_ascii_lowercase().as_str() {
            "text/plain" => Media::Text,
            "text/xml" | "application/xml" => Media::Xml,
            "application/json" => Media::Json,
            "application/x-protobuf" => Media::Protobuf,
            "application/protobuf" => Media::ProtobufIetf,
            "application/octet-stream" => Media::Binary,
            _ => return None,
        })
    }

    pub fn is_protobuf(self) -> bool {
        matches!(self, Media::Protobuf | Media::ProtobufIetf)
    }
}

/// The response type for `accept` among `offered`: the first listed type offered, or the
/// default for `*/*` or no header.
pub fn negotiate(headers: &HeaderMap, offered: &[Media]) -> Result<Media, RestError> {
    let default = offered[0];
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return Ok(default);
    };
    if accept.trim().is_empty() {
        return Ok(default);
    }
    for range in accept.split(',') {
        let essence = range.split(';').next().unwrap_or("").trim();
        if essence == "*/*" || essence == "text/*" && offered.contains(&Media::Xml) {
            return Ok(if essence == "text/*" && default != Media::Text {
                Media::Xml
            } else {
                default
            });
        }
        if let Some(m) = Media::parse(essence)
            && offered.contains(&m)
        {
            return Ok(m);
        }
    }
    Err(RestError::new(
        StatusCode::NOT_ACCEPTABLE,
        format!(
            "Not acceptable: {accept}; this resource is available as {}",
            offered
                .iter()
                .map(|m| m.content_type())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// The type of a request's body, from its Content-Type, or (without one) from its first
/// byte: `<` XML, `{` JSON.
pub fn body_type(headers: &HeaderMap, body: &[u8]) -> Result<Media, RestError> {
    match headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    {
        Some(value) => Media::parse(value).ok_or_else(|| {
            RestError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("Unsupported Media Type: {value}"),
            )
        }),
        None => match body.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'<') => Ok(Media::Xml),
            Some(b'{') => Ok(Media::Json),
            _ => Err(RestError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: the request names no Content-Type",
            )),
        },
    }
}

/// An answer other than success: a status and a plain-text message, as HBase's REST server
/// sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestError {
    pub status: StatusCode,
    pub message: String,
}

impl RestError {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        RestError {
            status,
            message: message.into(),
        }
    }

    pub fn bad_request(message: impl std::fmt::Display) -> Self {
        RestError::new(StatusCode::BAD_REQUEST, format!("Bad request: {message}"))
    }

    pub fn not_found(message: impl std::fmt::Display) -> Self {
        RestError::new(StatusCode::NOT_FOUND, format!("Not found: {message}"))
    }
}

impl From<Error> for RestError {
    fn from(e: Error) -> Self {
        let status = match e.kind() {
            ErrorKind::InvalidArgument => StatusCode::BAD_REQUEST,
            ErrorKind::NotFound => StatusCode::NOT_FOUND,
            ErrorKind::AlreadyExists | ErrorKind::Denied => StatusCode::FORBIDDEN,
            ErrorKind::WrongState | ErrorKind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorKind::Corruption | ErrorKind::Io => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let prefix = match status {
            StatusCode::BAD_REQUEST => "Bad request",
            StatusCode::NOT_FOUND => "Not found",
            StatusCode::FORBIDDEN => "Forbidden",
            StatusCode::SERVICE_UNAVAILABLE => "Unavailable",
            _ => "Internal server error",
        };
        RestError::new(status, format!("{prefix}: {e}"))
    }
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let mut message = self.message;
        message.push_str("\r\n");
        (
            self.status,
            [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"))],
            message,
        )
            .into_response()
    }
}

/// A successful answer: `body` as `media`.
pub fn reply(status: StatusCode, media: Media, body: impl Into<Vec<u8>>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(media.content_type()),
        )],
        body.into(),
    )
        .into_response()
}

pub type RestResult = Result<Response, RestError>;
