//! CellSet, HBase's REST representation of rows and their cells, in JSON, XML and protobuf.
//! Keys, columns (`family:qualifier`) and values are base64 in JSON and XML.

use basalt_client::{Cell, RowResult};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::media::{Media, RestError};
use crate::{pb, xml};

/// One cell of a CellSet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellModel {
    /// `family:qualifier` (or `family`, `family:` in a request naming a whole family).
    pub column: Option<Vec<u8>>,
    pub timestamp: Option<i64>,
    pub value: Vec<u8>,
}

/// One row of a CellSet; a request may leave the key out (the URL's row is meant).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowModel {
    pub key: Option<Vec<u8>>,
    pub cells: Vec<CellModel>,
}

/// Rows and cells, as a request carries them or a response sends them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSet {
    pub rows: Vec<RowModel>,
}

pub fn b64(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

pub fn unb64(what: &str, text: &str) -> Result<Vec<u8>, RestError> {
    STANDARD
        .decode(text.trim())
        .map_err(|e| RestError::bad_request(format!("{what} is not base64 ({e}): {text:?}")))
}

/// `family:qualifier` of a cell.
pub fn column_of(cell: &Cell) -> Vec<u8> {
    let mut column = Vec::with_capacity(cell.family().len() + 1 + cell.qualifier().len());
    column.extend_from_slice(cell.family());
    column.push(b':');
    column.extend_from_slice(cell.qualifier());
    column
}

impl CellSet {
    /// The CellSet of read rows (each row's cells in their order).
    pub fn of_rows(rows: &[RowResult]) -> Self {
        CellSet {
            rows: rows
                .iter()
                .filter(|r| !r.is_empty())
                .map(|r| RowModel {
                    key: Some(r.row.to_vec()),
                    cells: r.cells.iter().map(CellModel::of).collect(),
                })
                .collect(),
        }
    }

    pub fn encode(&self, media: Media) -> Vec<u8> {
        match media {
            Media::Json => self.to_json().to_string().into_bytes(),
            m if m.is_protobuf() => pb::encode(&self.to_pb()),
            _ => self.to_xml().into_bytes(),
        }
    }

    fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                let cells: Vec<Value> = r
                    .cells
                    .iter()
                    .map(|c| {
                        let mut cell = serde_json::Map::new();
                        cell.insert(
                            "column".into(),
                            json!(b64(c.column.as_deref().unwrap_or(b""))),
                        );
                        if let Some(ts) = c.timestamp {
                            cell.insert("timestamp".into(), json!(ts));
                        }
                        cell.insert("$".into(), json!(b64(&c.value)));
                        Value::Object(cell)
                    })
                    .collect();
                json!({"key": b64(r.key.as_deref().unwrap_or(b"")), "Cell": cells})
            })
            .collect();
        json!({ "Row": rows })
    }

    fn to_xml(&self) -> String {
        let mut w = xml::Writer::new();
        w.open("CellSet");
        for r in &self.rows {
            w.open("Row")
                .attr("key", b64(r.key.as_deref().unwrap_or(b"")));
            for c in &r.cells {
                w.open("Cell")
                    .attr("column", b64(c.column.as_deref().unwrap_or(b"")));
                if let Some(ts) = c.timestamp {
                    w.attr("timestamp", ts);
                }
                w.text(&b64(&c.value)).close();
            }
            w.close();
        }
        w.finish()
    }

    fn to_pb(&self) -> pb::CellSet {
        pb::CellSet {
            rows: self
                .rows
                .iter()
                .map(|r| pb::Row {
                    key: r.key.clone().unwrap_or_default(),
                    values: r
                        .cells
                        .iter()
                        .map(|c| pb::Cell {
                            row: None,
                            column: c.column.clone(),
                            timestamp: c.timestamp,
                            data: Some(c.value.clone()),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// A CellSet from a request body of type `media` (not [`Media::Binary`]).
    pub fn decode(media: Media, body: &[u8]) -> Result<Self, RestError> {
        match media {
            Media::Json => Self::from_json(body),
            Media::Xml => Self::from_xml(body),
            m if m.is_protobuf() => {
                let set: pb::CellSet =
                    pb::decode("CellSet", body).map_err(RestError::bad_request)?;
                Ok(CellSet {
                    rows: set
                        .rows
                        .into_iter()
                        .map(|r| RowModel {
                            key: Some(r.key),
                            cells: r
                                .values
                                .into_iter()
                                .map(|c| CellModel {
                                    column: c.column,
                                    timestamp: c.timestamp,
                                    value: c.data.unwrap_or_default(),
                                })
                                .collect(),
                        })
                        .collect(),
                })
            }
            other => Err(RestError::bad_request(format!(
                "a CellSet cannot be read as {}",
                other.content_type()
            ))),
        }
    }

    fn from_json(body: &[u8]) -> Result<Self, RestError> {
        let doc: Value = serde_json::from_slice(body)
            .map_err(|e| RestError::bad_request(format!("the CellSet is not JSON: {e}")))?;
        let rows = match doc.get("Row") {
            Some(Value::Array(rows)) => rows.clone(),
            Some(row @ Value::Object(_)) => vec![row.clone()],
            _ => return Err(RestError::bad_request("the CellSet has no Row list")),
        };
        let mut set = CellSet::default();
        for row in &rows {
            let key = match row.get("key") {
                Some(Value::String(k)) => Some(unb64("a row key", k)?),
                None | Some(Value::Null) => None,
                Some(other) => return Err(RestError::bad_request(format!("row key {other}"))),
            };
            let cells = match row.get("Cell") {
                Some(Value::Array(cells)) => cells.clone(),
                Some(cell @ Value::Object(_)) => vec![cell.clone()],
                None => Vec::new(),
                Some(other) => return Err(RestError::bad_request(format!("Cell {other}"))),
            };
            let mut out = Vec::with_capacity(cells.len());
            for cell in &cells {
                let column = match cell.get("column") {
                    Some(Value::String(c)) => Some(unb64("a column", c)?),
                    _ => None,
                };
                let timestamp = match cell.get("timestamp") {
                    Some(Value::Number(n)) => Some(n.as_i64().ok_or_else(|| {
                        RestError::bad_request(format!("timestamp {n} is not a whole number"))
                    })?),
                    Some(Value::String(s)) => Some(s.parse().map_err(|_| {
                        RestError::bad_request(format!("timestamp {s:?} is not a number"))
                    })?),
                    _ => None,
                };
                let value = match cell.get("$") {
                    Some(Value::String(v)) => unb64("a value", v)?,
                    None | Some(Value::Null) => Vec::new(),
                    Some(other) => return Err(RestError::bad_request(format!("value {other}"))),
                };
                out.push(CellModel {
                    column,
                    timestamp,
                    value,
                });
            }
            set.rows.push(RowModel { key, cells: out });
        }
        Ok(set)
    }

    fn from_xml(body: &[u8]) -> Result<Self, RestError> {
        let root = xml::parse(body).map_err(RestError::bad_request)?;
        if root.name != "CellSet" {
            return Err(RestError::bad_request(format!(
                "expected a <CellSet>, got <{}>",
                root.name
            )));
        }
        let mut set = CellSet::default();
        for row in root.children_named("Row") {
            let key = row.attr("key").map(|k| unb64("a row key", k)).transpose()?;
            let mut cells = Vec::new();
            for cell in row.children_named("Cell") {
                let column = cell
                    .attr("column")
                    .map(|c| unb64("a column", c))
                    .transpose()?;
                let timestamp = cell
                    .attr("timestamp")
                    .map(|t| {
                        t.parse().map_err(|_| {
                            RestError::bad_request(format!("timestamp {t:?} is not a number"))
                        })
                    })
                    .transpose()?;
                cells.push(CellModel {
                    column,
                    timestamp,
                    value: unb64("a value", &cell.text)?,
                });
            }
            set.rows.push(RowModel { key, cells });
        }
        Ok(set)
    }
}

impl CellModel {
    pub fn of(cell: &Cell) -> Self {
        CellModel {
            column: Some(column_of(cell)),
            timestamp: Some(cell.timestamp),
            value: cell.value().to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> CellSet {
        CellSet {
            rows: vec![RowModel {
                key: Some(b"row1".to_vec()),
                cells: vec![
                    CellModel {
                        column: Some(b"cf:a".to_vec()),
                        timestamp: Some(1421762485768),
                        value: b"value1".to_vec(),
                    },
                    CellModel {
                        column: Some(b"cf:\xff".to_vec()),
                        timestamp: None,
                        value: Vec::new(),
                    },
                ],
            }],
        }
    }

    #[test]
    fn every_representation_round_trips() {
        let set = sample();
        for media in [Media::Json, Media::Xml, Media::Protobuf] {
            let bytes = set.encode(media);
            assert_eq!(
                CellSet::decode(media, &bytes).expect("decodes"),
                set,
                "{media:?}"
            );
        }
    }

    #[test]
    fn json_is_hbase_s_shape() {
        let json = String::from_utf8(sample().encode(Media::Json)).expect("utf-8");
        let back: Value = serde_json::from_str(&json).expect("json");
        let row = &back["Row"][0];
        assert_eq!(row["key"], "cm93MQ==");
        assert_eq!(row["Cell"][0]["column"], "Y2Y6YQ==");
        assert_eq!(row["Cell"][0]["timestamp"], 1421762485768i64);
        assert_eq!(row["Cell"][0]["$"], "dmFsdWUx");
        // A cell without a timestamp is sent without one.
        assert!(row["Cell"][1].get("timestamp").is_none(), "{json}");
    }

    #[test]
    fn xml_is_hbase_s_shape() {
        let xml = String::from_utf8(sample().encode(Media::Xml)).expect("utf-8");
        assert!(
            xml.contains(
                r#"<CellSet><Row key="cm93MQ=="><Cell column="Y2Y6YQ==" timestamp="1421762485768">dmFsdWUx</Cell>"#
            ),
            "{xml}"
        );
    }

    #[test]
    fn bad_bodies_are_bad_requests() {
        for (media, body) in [
            (Media::Json, &b"{"[..]),
            (Media::Json, br#"{"Row":[{"key":"!!","Cell":[]}]}"#),
            (Media::Json, br#"{"nope":1}"#),
            (Media::Xml, b"<CellSet><Row key=\"x\">"),
            (Media::Xml, b"<Other/>"),
            (Media::Protobuf, b"\xff\xff\xff"),
        ] {
            let err = CellSet::decode(media, body).expect_err("rejected");
            assert_eq!(err.status.as_u16(), 400, "{media:?} {body:?}: {err:?}");
        }
    }
}
