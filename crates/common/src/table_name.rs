//! Table names: `namespace:qualifier`, validated as HBase's `TableName` does.

use std::fmt;

use crate::error::{Error, Result};

/// The namespace of tables named without one.
pub const DEFAULT_NAMESPACE: &str = "default";
/// The namespace of system tables.
pub const SYSTEM_NAMESPACE: &str = "hbase";

/// A validated table name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableName {
    namespace: String,
    qualifier: String,
}

impl TableName {
    /// Parses `ns:qualifier` or `qualifier` (namespace `default`).
    pub fn parse(name: &str) -> Result<TableName> {
        match name.split_once(':') {
            Some((ns, q)) => TableName::new(ns, q),
            None => TableName::new(DEFAULT_NAMESPACE, name),
        }
    }

    /// A table `qualifier` in namespace `namespace`.
    pub fn new(namespace: &str, qualifier: &str) -> Result<TableName> {
        // The full name is only built for an error: this runs on every request a gateway
        // serves.
        let invalid = |reason| Error::InvalidTableName {
            name: format!("{namespace}:{qualifier}"),
            reason,
        };
        validate_namespace(namespace).map_err(invalid)?;
        validate_qualifier(qualifier).map_err(invalid)?;
        Ok(TableName {
            namespace: namespace.to_owned(),
            qualifier: qualifier.to_owned(),
        })
    }

    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    pub fn qualifier(&self) -> &str {
        &self.qualifier
    }

    /// Whether the table lives in the `hbase` namespace.
    pub fn is_system(&self) -> bool {
        self.namespace == SYSTEM_NAMESPACE
    }

    /// Whether this is `hbase:meta`, the catalog.
    pub fn is_meta(&self) -> bool {
        self.is_system() && self.qualifier == "meta"
    }
}

/// `qualifier` for the default namespace, `ns:qualifier` otherwise (HBase's `getNameAsString`).
impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace == DEFAULT_NAMESPACE {
            f.write_str(&self.qualifier)
        } else {
            write!(f, "{}:{}", self.namespace, self.qualifier)
        }
    }
}

impl std::str::FromStr for TableName {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        TableName::parse(s)
    }
}

fn is_word_char(c: char) -> bool {
    c == '_' || c.is_numeric() || c.is_alphabetic()
}

/// `[_\p{Digit}\p{IsAlphabetic}]+`
pub fn validate_namespace(ns: &str) -> std::result::Result<(), String> {
    if ns.is_empty() {
        return Err("namespace must not be empty".into());
    }
    if let Some(c) = ns.chars().find(|&c| !is_word_char(c)) {
        return Err(format!(
            "namespace may only contain '_', digits and letters, found {c:?}"
        ));
    }
    Ok(())
}

/// `[_\p{Digit}\p{IsAlphabetic}][-_.\p{Digit}\p{IsAlphabetic}]*`
fn validate_qualifier(q: &str) -> std::result::Result<(), String> {
    let mut chars = q.chars();
    let Some(first) = chars.next() else {
        return Err("table qualifier must not be empty".into());
    };
    if !is_word_char(first) {
        return Err(format!(
            "table qualifier must start with '_', a digit or a letter, found {first:?}"
        ));
    }
    if let Some(c) = chars.find(|&c| !(is_word_char(c) || c == '-' || c == '.')) {
        return Err(format!(
            "table qualifier may only contain '_', '-', '.', digits and letters, found {c:?}"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        let t = TableName::parse("webtable").unwrap();
        assert_eq!(t.namespace(), "default");
        assert_eq!(t.to_string(), "webtable");
        let m = TableName::parse("hbase:meta").unwrap();
        assert!(m.is_system());
        assert_eq!(m.to_string(), "hbase:meta");
        assert_eq!(
            TableName::parse("default:t").unwrap(),
            TableName::parse("t").unwrap()
        );
    }

    #[test]
    fn rejects_bad_names() {
        for bad in ["", ":t", "ns:", "-t", ".t", "a b", "ns-x:t", "t/x", "a:b:c"] {
            let err = TableName::parse(bad).unwrap_err();
            // The error names the table in full, namespace included.
            let full = if bad.contains(':') {
                bad.to_owned()
            } else {
                format!("default:{bad}")
            };
            assert!(
                matches!(&err, Error::InvalidTableName { name, .. } if *name == full),
                "{bad}: {err}"
            );
        }
        assert!(TableName::parse("my_table-1.v2").is_ok());
    }
}
