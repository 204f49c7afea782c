//! Region identity: a table's row-key range `[start, end)` created at `region_id` (a
//! millisecond timestamp), named as HBase names regions:
//! `<table>,<start key>,<region id>.<md5 hex of what precedes>.`

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::md5::md5_hex;
use crate::pb::{self, PbValue, PbWriter};
use crate::table_name::TableName;

/// One region of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionInfo {
    pub table: TableName,
    /// First row of the region; empty for the table's first region.
    pub start_key: Bytes,
    /// First row after the region; empty for the table's last region.
    pub end_key: Bytes,
    pub region_id: i64,
    /// Set on a region that no longer serves (a split parent).
    pub offline: bool,
    /// Set on a split parent.
    pub split: bool,
}

impl RegionInfo {
    pub fn new(table: TableName, start_key: Bytes, end_key: Bytes, region_id: i64) -> Self {
        RegionInfo {
            table,
            start_key,
            end_key,
            region_id,
            offline: false,
            split: false,
        }
    }

    /// The one region of a table that has never split: every row.
    pub fn whole_table(table: TableName, region_id: i64) -> Self {
        RegionInfo::new(table, Bytes::new(), Bytes::new(), region_id)
    }

    /// `<table>,<start key>,<region id>`: the part of the name the encoded name hashes.
    fn name_prefix(&self) -> Vec<u8> {
        let mut b = self.table.to_string().into_bytes();
        b.push(b',');
        b.extend_from_slice(&self.start_key);
        b.push(b',');
        b.extend_from_slice(self.region_id.to_string().as_bytes());
        b
    }

    /// The full region name, which is also its `hbase:meta` row key.
    pub fn region_name(&self) -> Bytes {
        let mut b = self.name_prefix();
        let encoded = md5_hex(&b);
        b.push(b'.');
        b.extend_from_slice(encoded.as_bytes());
        b.push(b'.');
        Bytes::from(b)
    }

    /// The 32-character MD5 hex of the name: the region's directory name.
    pub fn encoded_name(&self) -> String {
        md5_hex(&self.name_prefix())
    }

    /// Whether `row` falls in `[start, end)`.
    /// The 32-character encoded name a full region name (`table,start,id.<encoded>.`) ends
    /// with, between dots: the MD5 of the rest, so it identifies the region. None for a name
    /// without one (an encoded name alone, or meta's `hbase:meta,,1`). Nothing is hashed.
    pub fn encoded_part(region_name: &[u8]) -> Option<&[u8]> {
        let n = region_name.len();
        (n >= 34 && region_name[n - 34] == b'.' && region_name[n - 1] == b'.')
            .then(|| &region_name[n - 33..n - 1])
    }

    pub fn contains_row(&self, row: &[u8]) -> bool {
        row >= &self.start_key[..] && (self.end_key.is_empty() || row < &self.end_key[..])
    }

    /// HBase's `RegionInfo` message (HBase.proto): region_id 1, table_name 2 (namespace 1,
    /// qualifier 2), start_key 3, end_key 4, offline 5, split 6, replica_id 7.
    pub fn to_pb(&self) -> Vec<u8> {
        let table = PbWriter::new()
            .bytes(1, self.table.namespace().as_bytes())
            .bytes(2, self.table.qualifier().as_bytes())
            .finish();
        let mut w = PbWriter::new();
        w.varint(1, self.region_id as u64)
            .bytes(2, &table)
            .bytes(3, &self.start_key)
            .bytes(4, &self.end_key)
            .varint(5, u64::from(self.offline))
            .varint(6, u64::from(self.split))
            .varint(7, 0);
        let mut out = pb::PB_MAGIC.to_vec();
        out.extend(w.finish());
        out
    }

    /// Reads `PBUF` + a `RegionInfo` message.
    pub fn from_pb(value: &[u8]) -> Result<Self> {
        let bad = |reason: String| Error::corrupt(format!("region info: {reason}"));
        let msg = pb::strip_magic(value).map_err(bad)?;
        let (mut id, mut table, mut start, mut end) = (None, None, Bytes::new(), Bytes::new());
        let (mut offline, mut split) = (false, false);
        for (field, v) in pb::fields(msg).map_err(bad)? {
            match (field, v) {
                (1, PbValue::Varint(n)) => id = Some(n as i64),
                (2, PbValue::Bytes(b)) => {
                    let (mut ns, mut q) = (None, None);
                    for (f, v) in pb::fields(b).map_err(bad)? {
                        match (f, v) {
                            (1, PbValue::Bytes(s)) => ns = Some(s),
                            (2, PbValue::Bytes(s)) => q = Some(s),
                            _ => {}
                        }
                    }
                    let text = |s: Option<&[u8]>| {
                        String::from_utf8(s.unwrap_or_default().to_vec())
                            .map_err(|_| bad("table name is not UTF-8".into()))
                    };
                    table = Some(TableName::new(&text(ns)?, &text(q)?)?);
                }
                (3, PbValue::Bytes(b)) => start = Bytes::copy_from_slice(b),
                (4, PbValue::Bytes(b)) => end = Bytes::copy_from_slice(b),
                (5, PbValue::Varint(n)) => offline = n != 0,
                (6, PbValue::Varint(n)) => split = n != 0,
                _ => {}
            }
        }
        Ok(RegionInfo {
            table: table.ok_or_else(|| bad("no table name".into()))?,
            start_key: start,
            end_key: end,
            region_id: id.ok_or_else(|| bad("no region id".into()))?,
            offline,
            split,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_hbase() {
        let t = TableName::parse("t1").unwrap_or_else(|e| panic!("{e}"));
        let r = RegionInfo::new(
            t,
            Bytes::from_static(b"row5"),
            Bytes::new(),
            1_700_000_000_000,
        );
        let name = String::from_utf8(r.region_name().to_vec()).unwrap_or_default();
        let encoded = md5_hex(b"t1,row5,1700000000000");
        assert_eq!(name, format!("t1,row5,1700000000000.{encoded}."));
        assert_eq!(r.encoded_name(), encoded);
        assert!(r.contains_row(b"row5") && r.contains_row(b"z") && !r.contains_row(b"row4"));
        assert_eq!(RegionInfo::from_pb(&r.to_pb()), Ok(r));
    }
}
