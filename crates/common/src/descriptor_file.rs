//! The `.tabledesc` file: a table descriptor as text (docs/design/catalog.md).
//!
//! ```text
//! basalt-tabledesc 1
//! table default:webtable
//! attr MAX_FILESIZE 1073741824
//! meta owner-team storage
//! family contents
//! attr VERSIONS 5
//! conf hbase.some.key 10
//! ```
//!
//! Every word after the keyword is percent-escaped (`%XX` for bytes outside printable ASCII,
//! for `%` and for space), so names and values may hold any bytes.

use std::fmt::Write as _;

use crate::error::{Error, Result};
use crate::family_descriptor::{ColumnFamilyDescriptor, TTL_FOREVER};
use crate::table_descriptor::TableDescriptor;
use crate::table_name::TableName;

const HEADER: &str = "basalt-tabledesc 1";

fn escape(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'%' {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn unescape(word: &str) -> Result<Vec<u8>> {
    let bad = || Error::InvalidArgument(format!("table descriptor file: bad escape in {word:?}"));
    let bytes = word.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = word.get(i + 1..i + 3).ok_or_else(bad)?;
            out.push(u8::from_str_radix(hex, 16).map_err(|_| bad())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Ok(out)
}

fn unescape_text(word: &str) -> Result<String> {
    String::from_utf8(unescape(word)?).map_err(|_| {
        Error::InvalidArgument(format!("table descriptor file: {word:?} is not UTF-8"))
    })
}

/// The descriptor as `.tabledesc` text.
pub fn to_text(desc: &TableDescriptor) -> String {
    let mut out = format!(
        "{HEADER}\ntable {}:{}\n",
        desc.name.namespace(),
        desc.name.qualifier()
    );
    let line = |out: &mut String, kw: &str, k: &str, v: &str| {
        let _ = writeln!(
            out,
            "{kw} {} {}",
            escape(k.as_bytes()),
            escape(v.as_bytes())
        );
    };
    for (k, v) in desc.non_default_attributes() {
        if !k.starts_with("coprocessor$") {
            line(&mut out, "attr", &k, &v);
        }
    }
    for (i, c) in desc.coprocessors.iter().enumerate() {
        line(&mut out, "attr", &format!("coprocessor${}", i + 1), c);
    }
    for (k, v) in &desc.metadata {
        line(&mut out, "meta", k, v);
    }
    for (k, v) in &desc.configuration {
        line(&mut out, "conf", k, v);
    }
    for f in desc.families() {
        let _ = writeln!(out, "family {}", escape(&f.name));
        for (k, v) in f.attributes() {
            // Raw numbers rather than describe's `86400 SECONDS (1 DAY)` and `65536 B (64KB)`.
            let v = match k {
                "TTL" if f.ttl_seconds != TTL_FOREVER => f.ttl_seconds.to_string(),
                "BLOCKSIZE" => f.block_size.to_string(),
                _ => v,
            };
            line(&mut out, "attr", k, &v);
        }
        if let Some(key) = &f.encryption_key {
            let _ = writeln!(out, "attr ENCRYPTION_KEY {}", escape(key));
        }
        for (k, v) in &f.metadata {
            line(&mut out, "meta", k, v);
        }
        for (k, v) in &f.configuration {
            line(&mut out, "conf", k, v);
        }
    }
    out
}

/// Parses `.tabledesc` text; the error names the line.
pub fn from_text(text: &str) -> Result<TableDescriptor> {
    let mut lines = text.lines().enumerate();
    let bad = |n: usize, what: &str| {
        Error::InvalidArgument(format!("table descriptor file, line {}: {what}", n + 1))
    };
    match lines.next() {
        Some((_, HEADER)) => {}
        _ => return Err(bad(0, &format!("expected {HEADER:?}"))),
    }
    let mut desc: Option<TableDescriptor> = None;
    let mut family: Option<ColumnFamilyDescriptor> = None;
    for (n, line) in lines {
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["table", name] if desc.is_none() => {
                desc = Some(TableDescriptor::new(TableName::parse(name)?))
            }
            ["family", name] => {
                let d = desc.as_mut().ok_or_else(|| bad(n, "family before table"))?;
                if let Some(f) = family.take() {
                    d.add_family(f);
                }
                family = Some(ColumnFamilyDescriptor::new(unescape(name)?));
            }
            [kw @ ("attr" | "meta" | "conf"), key, value] => {
                let key = unescape_text(key)?;
                let d = desc
                    .as_mut()
                    .ok_or_else(|| bad(n, "attribute before table"))?;
                match (*kw, family.as_mut()) {
                    ("attr", Some(f)) if key == "ENCRYPTION_KEY" => {
                        f.encryption_key = Some(unescape(value)?)
                    }
                    ("attr", Some(f)) => f.set_attribute(&key, &unescape_text(value)?)?,
                    ("attr", None) => d.set_attribute(&key, &unescape_text(value)?)?,
                    ("meta", Some(f)) => drop(f.metadata.insert(key, unescape_text(value)?)),
                    ("meta", None) => drop(d.metadata.insert(key, unescape_text(value)?)),
                    (_, Some(f)) => drop(f.configuration.insert(key, unescape_text(value)?)),
                    (_, None) => drop(d.configuration.insert(key, unescape_text(value)?)),
                }
            }
            _ => return Err(bad(n, &format!("cannot read {line:?}"))),
        }
    }
    let mut desc = desc.ok_or_else(|| bad(0, "no table line"))?;
    if let Some(f) = family {
        desc.add_family(f);
    }
    Ok(desc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{BloomType, Compression, Durability, KeepDeletedCells};

    #[test]
    fn round_trips_every_kind_of_attribute() {
        let mut desc = TableDescriptor::named("ns1:web table-ok".replace(' ', "_").as_str())
            .unwrap()
            .with_durability(Durability::FsyncWal);
        desc.set_attribute("MAX_FILESIZE", "1073741824").unwrap();
        desc.set_attribute("coprocessor$1", "hdfs:///x.jar|org.Example|1001|a=b")
            .unwrap();
        desc.metadata
            .insert("owner note".into(), "100% ours".into());
        let mut f = ColumnFamilyDescriptor::new(&b"Personal Data"[..])
            .with_max_versions(5)
            .with_ttl_seconds(86_400)
            .with_keep_deleted_cells(KeepDeletedCells::Ttl)
            .with_compression(Compression::Zstd)
            .with_bloom_filter(BloomType::RowCol)
            .with_block_cache(false);
        f.encryption_key = Some(vec![0, 255, b' ', b'%']);
        f.configuration
            .insert("hbase.hstore.blockingStoreFiles".into(), "20".into());
        desc.add_family(f);
        desc.add_family(ColumnFamilyDescriptor::new("b"));
        let text = to_text(&desc);
        assert_eq!(from_text(&text).unwrap(), desc, "{text}");
    }

    #[test]
    fn malformed_files_name_the_line() {
        assert!(from_text("nonsense").is_err());
        let err =
            from_text("basalt-tabledesc 1\ntable t\nfamily cf\nattr VERSIONS many\n").unwrap_err();
        assert!(err.to_string().contains("VERSIONS"), "{err}");
        let err = from_text("basalt-tabledesc 1\ntable t\nwhat is this\n").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        assert!(from_text("basalt-tabledesc 1\nattr X y\n").is_err());
    }
}
