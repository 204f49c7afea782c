//! TableSchema and ColumnSchema: a table's descriptor as HBase's REST server shows and takes
//! it. Attributes are HBase's names (`VERSIONS`, `BLOCKSIZE`, ...) with string values.

use basalt_client::{ColumnFamilyDescriptor, TableDescriptor, TableName};
use serde_json::{Map, Value, json};

use crate::media::{Media, RestError};
use crate::{pb, xml};

/// A family's attributes as the REST server shows them: numbers plain (HBase's `describe`
/// decorates BLOCKSIZE and TTL; REST does not).
fn family_attributes(f: &ColumnFamilyDescriptor) -> Vec<(String, String)> {
    f.attributes()
        .into_iter()
        .map(|(k, v)| {
            let v = match k {
                "BLOCKSIZE" => f.block_size.to_string(),
                "TTL" => f.ttl_seconds.to_string(),
                _ => v,
            };
            (k.to_owned(), v)
        })
        .collect()
}

/// A table's attributes as the REST server shows them.
fn table_attributes(t: &TableDescriptor) -> Vec<(String, String)> {
    let mut attrs = t.non_default_attributes();
    attrs.push(("IS_META".into(), t.name.is_meta().to_string()));
    attrs
}

/// `descriptor` as `media`.
pub fn encode(descriptor: &TableDescriptor, media: Media) -> Vec<u8> {
    let name = descriptor.name.to_string();
    match media {
        Media::Json => {
            let mut doc = Map::new();
            doc.insert("name".into(), json!(name));
            for (k, v) in table_attributes(descriptor) {
                doc.insert(k, json!(v));
            }
            let families: Vec<Value> = descriptor
                .families()
                .iter()
                .map(|f| {
                    let mut family = Map::new();
                    family.insert("name".into(), json!(f.name_str()));
                    for (k, v) in family_attributes(f) {
                        family.insert(k, json!(v));
                    }
                    Value::Object(family)
                })
                .collect();
            doc.insert("ColumnSchema".into(), Value::Array(families));
            Value::Object(doc).to_string().into_bytes()
        }
        m if m.is_protobuf() => pb::encode(&pb::TableSchema {
            name: Some(name),
            attrs: table_attributes(descriptor)
                .into_iter()
                .map(|(name, value)| pb::Attribute { name, value })
                .collect(),
            columns: descriptor
                .families()
                .iter()
                .map(|f| pb::ColumnSchema {
                    name: Some(f.name_str()),
                    attrs: family_attributes(f)
                        .into_iter()
                        .map(|(name, value)| pb::Attribute { name, value })
                        .collect(),
                    ttl: Some(i32::try_from(f.ttl_seconds).unwrap_or(i32::MAX)),
                    max_versions: Some(i32::try_from(f.max_versions).unwrap_or(i32::MAX)),
                    compression: Some(f.compression.to_string()),
                })
                .collect(),
            in_memory: Some(descriptor.families().iter().any(|f| f.in_memory)),
            read_only: Some(descriptor.read_only),
        }),
        _ => {
            let mut w = xml::Writer::new();
            w.open("TableSchema").attr("name", &name);
            for (k, v) in table_attributes(descriptor) {
                w.attr(&k, v);
            }
            for f in descriptor.families() {
                w.open("ColumnSchema").attr("name", f.name_str());
                for (k, v) in family_attributes(f) {
                    w.attr(&k, v);
                }
                w.close();
            }
            w.finish().into_bytes()
        }
    }
}

/// A schema as a request sends it: attributes by name, families with theirs.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SchemaModel {
    pub attrs: Vec<(String, String)>,
    pub families: Vec<(String, Vec<(String, String)>)>,
}

/// Table attributes the REST server reports but a client cannot set.
const DERIVED: &[&str] = &["IS_META", "IS_ROOT", "name"];

impl SchemaModel {
    pub fn decode(media: Media, body: &[u8]) -> Result<Self, RestError> {
        match media {
            Media::Json => Self::from_json(body),
            Media::Xml => Self::from_xml(body),
            m if m.is_protobuf() => {
                let t: pb::TableSchema =
                    pb::decode("TableSchema", body).map_err(RestError::bad_request)?;
                let mut model = SchemaModel {
                    attrs: t.attrs.into_iter().map(|a| (a.name, a.value)).collect(),
                    families: Vec::new(),
                };
                if t.read_only == Some(true) {
                    model.attrs.push(("READONLY".into(), "true".into()));
                }
                for c in t.columns {
                    let mut attrs: Vec<(String, String)> =
                        c.attrs.into_iter().map(|a| (a.name, a.value)).collect();
                    if let Some(ttl) = c.ttl {
                        attrs.push(("TTL".into(), ttl.to_string()));
                    }
                    if let Some(v) = c.max_versions {
                        attrs.push(("VERSIONS".into(), v.to_string()));
                    }
                    if let Some(comp) = c.compression {
                        attrs.push(("COMPRESSION".into(), comp));
                    }
                    model.families.push((c.name.unwrap_or_default(), attrs));
                }
                Ok(model)
            }
            other => Err(RestError::bad_request(format!(
                "a TableSchema cannot be read as {}",
                other.content_type()
            ))),
        }
    }

    fn from_json(body: &[u8]) -> Result<Self, RestError> {
        let doc: Value = serde_json::from_slice(body)
            .map_err(|e| RestError::bad_request(format!("the TableSchema is not JSON: {e}")))?;
        let Value::Object(doc) = doc else {
            return Err(RestError::bad_request(
                "the TableSchema is not a JSON object",
            ));
        };
        let mut model = SchemaModel::default();
        for (k, v) in &doc {
            if k == "ColumnSchema" {
                let families = match v {
                    Value::Array(f) => f.clone(),
                    f @ Value::Object(_) => vec![f.clone()],
                    _ => return Err(RestError::bad_request("ColumnSchema is not a list")),
                };
                for family in families {
                    let Value::Object(family) = family else {
                        return Err(RestError::bad_request("a ColumnSchema is not an object"));
                    };
                    let mut name = String::new();
                    let mut attrs = Vec::new();
                    for (fk, fv) in family {
                        let value = scalar(&fk, &fv)?;
                        if fk == "name" {
                            name = value;
                        } else {
                            attrs.push((fk, value));
                        }
                    }
                    model.families.push((name, attrs));
                }
            } else if !DERIVED.contains(&k.as_str()) {
                model.attrs.push((k.clone(), scalar(k, v)?));
            }
        }
        Ok(model)
    }

    fn from_xml(body: &[u8]) -> Result<Self, RestError> {
        let root = xml::parse(body).map_err(RestError::bad_request)?;
        if root.name != "TableSchema" {
            return Err(RestError::bad_request(format!(
                "expected a <TableSchema>, got <{}>",
                root.name
            )));
        }
        let mut model = SchemaModel {
            attrs: root
                .attrs
                .iter()
                .filter(|(k, _)| !DERIVED.contains(&k.as_str()))
                .cloned()
                .collect(),
            families: Vec::new(),
        };
        for family in root.children_named("ColumnSchema") {
            let name = family.attr("name").unwrap_or("").to_owned();
            let attrs = family
                .attrs
                .iter()
                .filter(|(k, _)| k != "name")
                .cloned()
                .collect();
            model.families.push((name, attrs));
        }
        Ok(model)
    }

    /// The families this schema names, each from `base` (its current descriptor, if any)
    /// with the model's attributes applied.
    pub fn family_descriptors(
        &self,
        base: Option<&TableDescriptor>,
    ) -> Result<Vec<ColumnFamilyDescriptor>, RestError> {
        let mut out = Vec::new();
        for (name, attrs) in &self.families {
            if name.is_empty() {
                return Err(RestError::bad_request("a ColumnSchema has no name"));
            }
            // `cf:` names the family `cf`, as HBase's REST server strips the colon.
            let name = name.strip_suffix(':').unwrap_or(name);
            let mut family = base
                .and_then(|t| t.family(name.as_bytes()))
                .cloned()
                .unwrap_or_else(|| ColumnFamilyDescriptor::new(name.as_bytes().to_vec()));
            for (k, v) in attrs {
                family.set_attribute(k, v).map_err(RestError::from)?;
            }
            out.push(family);
        }
        Ok(out)
    }

    /// A whole new descriptor for `name` (a create, or PUT's replace).
    pub fn descriptor(&self, name: &TableName) -> Result<TableDescriptor, RestError> {
        let mut descriptor = TableDescriptor::new(name.clone());
        for (k, v) in &self.attrs {
            descriptor.set_attribute(k, v).map_err(RestError::from)?;
        }
        for family in self.family_descriptors(None)? {
            descriptor.add_family(family);
        }
        Ok(descriptor)
    }
}

/// A JSON attribute value as the string HBase keeps.
fn scalar(key: &str, value: &Value) -> Result<String, RestError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(RestError::bad_request(format!(
            "attribute {key} must be a string, number or boolean, not {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> TableDescriptor {
        TableDescriptor::named("t")
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("cf").with_max_versions(2))
    }

    #[test]
    fn every_representation_round_trips() {
        let t = table();
        for media in [Media::Json, Media::Xml, Media::Protobuf] {
            let model = SchemaModel::decode(media, &encode(&t, media)).expect("decodes");
            let back = model.descriptor(&t.name).expect("descriptor");
            assert_eq!(back.families(), t.families(), "{media:?}");
        }
    }

    #[test]
    fn json_shows_hbase_s_attribute_names() {
        let json: Value = serde_json::from_slice(&encode(&table(), Media::Json)).expect("json");
        assert_eq!(json["name"], "t");
        assert_eq!(json["IS_META"], "false");
        let cf = &json["ColumnSchema"][0];
        assert_eq!(cf["name"], "cf");
        assert_eq!(cf["VERSIONS"], "2");
        assert_eq!(cf["BLOCKSIZE"], "65536");
        assert_eq!(cf["TTL"], "2147483647");
    }

    #[test]
    fn bad_attributes_are_bad_requests() {
        let model = SchemaModel::decode(
            Media::Json,
            br#"{"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"many"}]}"#,
        )
        .expect("parses");
        let err = model.descriptor(&table().name).expect_err("rejected");
        assert_eq!(err.status.as_u16(), 400, "{err:?}");
    }
}
