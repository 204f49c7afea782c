//! The file info block (docs/design/storefile.md, "File info block").

use std::collections::BTreeMap;

use basalt_common::{BloomType, Cell};

use crate::key::decode_index_key;
use crate::varint;

/// What a store file says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub first_key: Cell,
    pub last_key: Cell,
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    pub max_seq_id: u64,
    pub cell_count: u64,
    pub delete_count: u64,
    pub delete_family_count: u64,
    pub family: Vec<u8>,
    pub bloom_type: BloomType,
    pub compression: String,
    pub data_block_count: u64,
    /// Names of the files this one replaced, for a compacted file (HBase's
    /// `COMPACTION_EVENT_KEY`): a store that still finds them after a crash deletes them.
    pub compacted_from: Vec<String>,
}

impl FileInfo {
    /// The block payload.
    pub fn encode(&self) -> Vec<u8> {
        use crate::key::encode_index_key;
        let entries: Vec<(&str, Vec<u8>)> = vec![
            ("FIRST_KEY", encode_index_key(&self.first_key)),
            ("LAST_KEY", encode_index_key(&self.last_key)),
            ("MIN_TIMESTAMP", self.min_timestamp.to_be_bytes().to_vec()),
            ("MAX_TIMESTAMP", self.max_timestamp.to_be_bytes().to_vec()),
            ("MAX_SEQ_ID", self.max_seq_id.to_be_bytes().to_vec()),
            ("CELL_COUNT", self.cell_count.to_be_bytes().to_vec()),
            ("DELETE_COUNT", self.delete_count.to_be_bytes().to_vec()),
            (
                "DELETE_FAMILY_COUNT",
                self.delete_family_count.to_be_bytes().to_vec(),
            ),
            ("FAMILY", self.family.clone()),
            ("BLOOM_TYPE", self.bloom_type.as_str().as_bytes().to_vec()),
            ("COMPRESSION", self.compression.as_bytes().to_vec()),
            (
                "DATA_BLOCK_COUNT",
                self.data_block_count.to_be_bytes().to_vec(),
            ),
            (
                "COMPACTED_FROM",
                self.compacted_from.join("\n").into_bytes(),
            ),
        ];
        let mut out = Vec::new();
        varint::put(&mut out, entries.len() as u64);
        for (k, v) in entries {
            varint::put(&mut out, k.len() as u64);
            out.extend_from_slice(k.as_bytes());
            varint::put(&mut out, v.len() as u64);
            out.extend_from_slice(&v);
        }
        out
    }

    /// Parses a payload; unknown keys are ignored, missing or malformed known ones are errors.
    pub fn decode(payload: &[u8]) -> Result<FileInfo, String> {
        let mut pos = 0;
        let count = varint::get(payload, &mut pos).ok_or("file info: truncated count")?;
        let mut map: BTreeMap<String, &[u8]> = BTreeMap::new();
        for _ in 0..count {
            let mut field = || -> Result<&[u8], String> {
                let len =
                    varint::get(payload, &mut pos).ok_or("file info: truncated length")? as usize;
                let end = pos
                    .checked_add(len)
                    .filter(|&e| e <= payload.len())
                    .ok_or("file info: truncated entry")?;
                let f = &payload[pos..end];
                pos = end;
                Ok(f)
            };
            let key = String::from_utf8_lossy(field()?).into_owned();
            let value = field()?;
            map.insert(key, value);
        }
        let get = |k: &str| {
            map.get(k)
                .copied()
                .ok_or_else(|| format!("file info: no {k}"))
        };
        let u64_of = |k: &str| -> Result<u64, String> {
            Ok(u64::from_be_bytes(
                get(k)?
                    .try_into()
                    .map_err(|_| format!("file info: {k} is not 8 bytes"))?,
            ))
        };
        let i64_of = |k: &str| u64_of(k).map(|v| v as i64);
        let text = |k: &str| get(k).map(|v| String::from_utf8_lossy(v).into_owned());
        Ok(FileInfo {
            first_key: decode_index_key(get("FIRST_KEY")?)
                .map_err(|e| format!("file info FIRST_KEY: {e}"))?,
            last_key: decode_index_key(get("LAST_KEY")?)
                .map_err(|e| format!("file info LAST_KEY: {e}"))?,
            min_timestamp: i64_of("MIN_TIMESTAMP")?,
            max_timestamp: i64_of("MAX_TIMESTAMP")?,
            max_seq_id: u64_of("MAX_SEQ_ID")?,
            cell_count: u64_of("CELL_COUNT")?,
            delete_count: u64_of("DELETE_COUNT")?,
            delete_family_count: u64_of("DELETE_FAMILY_COUNT")?,
            family: get("FAMILY")?.to_vec(),
            bloom_type: text("BLOOM_TYPE")?
                .parse()
                .map_err(|e| format!("file info BLOOM_TYPE: {e}"))?,
            compression: text("COMPRESSION")?,
            data_block_count: u64_of("DATA_BLOCK_COUNT")?,
            compacted_from: match map.get("COMPACTED_FROM") {
                Some(v) if !v.is_empty() => String::from_utf8_lossy(v)
                    .split('\n')
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            },
        })
    }
}
