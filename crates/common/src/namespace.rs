//! Namespaces (HBase's `NamespaceDescriptor`): a name and free-form properties.

use std::collections::BTreeMap;

use crate::pb::{self, PbValue, PbWriter};
use crate::{Error, Result};

/// A namespace: a name and free-form properties (HBase's `NamespaceDescriptor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    pub name: String,
    pub configuration: BTreeMap<String, String>,
}

impl NamespaceDescriptor {
    /// A namespace named `name` (validated as HBase validates namespace names when created).
    pub fn new(name: &str) -> Self {
        NamespaceDescriptor {
            name: name.to_owned(),
            configuration: BTreeMap::new(),
        }
    }

    pub fn with_configuration(mut self, key: &str, value: &str) -> Self {
        self.configuration.insert(key.to_owned(), value.to_owned());
        self
    }

    /// `PBUF` and HBase's `NamespaceDescriptor` message: name 1, configuration 2
    /// (NameStringPair: name 1, value 2), as `hbase:meta`'s `ns:d` holds it.
    pub fn to_pb(&self) -> Vec<u8> {
        let mut w = PbWriter::new();
        w.bytes(1, self.name.as_bytes());
        for (k, v) in &self.configuration {
            let pair = PbWriter::new()
                .bytes(1, k.as_bytes())
                .bytes(2, v.as_bytes())
                .finish();
            w.bytes(2, &pair);
        }
        let mut out = pb::PB_MAGIC.to_vec();
        out.extend(w.finish());
        out
    }

    /// Reads what [`NamespaceDescriptor::to_pb`] writes.
    pub fn from_pb(value: &[u8]) -> Result<Self> {
        let bad = |reason: String| Error::corrupt(format!("namespace descriptor: {reason}"));
        let text = |b: &[u8]| String::from_utf8(b.to_vec()).map_err(|_| bad("not UTF-8".into()));
        let mut ns = NamespaceDescriptor::new("");
        for (field, v) in pb::fields(pb::strip_magic(value).map_err(bad)?).map_err(bad)? {
            match (field, v) {
                (1, PbValue::Bytes(b)) => ns.name = text(b)?,
                (2, PbValue::Bytes(b)) => {
                    let (mut k, mut val) = (String::new(), String::new());
                    for (f, v) in pb::fields(b).map_err(bad)? {
                        match (f, v) {
                            (1, PbValue::Bytes(s)) => k = text(s)?,
                            (2, PbValue::Bytes(s)) => val = text(s)?,
                            _ => {}
                        }
                    }
                    ns.configuration.insert(k, val);
                }
                _ => {}
            }
        }
        Ok(ns)
    }
}
