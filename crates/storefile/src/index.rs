//! Index block payloads (docs/design/storefile.md, "Index"), and a run of index entries as a
//! reader holds it.

use std::cmp::Ordering;

use basalt_common::Cell;

use crate::data_block::RowSearch;
use crate::key::decode_index_key;
use crate::varint;

/// Where a block is, and its first cell (key only): a data block's, or for a leaf index block,
/// the first data block's under it.
#[derive(Debug, Clone)]
pub struct BlockRef {
    pub first: Cell,
    pub offset: u64,
    pub size: u64,
}

/// One index block's entries (or a whole one-level index) decoded, with the search array over
/// their first cells: a seek among many blocks touches a few of those cells instead of one per
/// step of its binary search.
#[derive(Debug, Default)]
pub struct IndexPart {
    pub blocks: Vec<BlockRef>,
    search: RowSearch,
    /// The bytes it holds in memory, counted once (the block cache asks often).
    weight: usize,
}

impl IndexPart {
    /// The part of `entries`, which must be in order and must not overlap; the error names
    /// what is wrong, and the entry's offset.
    pub fn new(entries: Vec<IndexEntry>) -> Result<IndexPart, (u64, String)> {
        let mut blocks = Vec::with_capacity(entries.len());
        let mut previous_end = 0;
        for e in entries {
            if e.offset < previous_end {
                return Err((e.offset, "index entries overlap or go backwards".into()));
            }
            previous_end = e.offset.saturating_add(e.size);
            let first =
                decode_index_key(&e.key).map_err(|r| (e.offset, format!("index key: {r}")))?;
            blocks.push(BlockRef {
                first,
                offset: e.offset,
                size: e.size,
            });
        }
        let search = RowSearch::new(blocks.iter().map(|b| &b.first));
        let keys: usize = blocks
            .iter()
            .map(|b| {
                std::mem::size_of::<BlockRef>() + b.first.row().len() + b.first.qualifier().len()
            })
            .sum();
        let weight = keys + search.size();
        Ok(IndexPart {
            blocks,
            search,
            weight,
        })
    }

    /// How many blocks have a first key that stands to `target` as `before` asks (`is_le`:
    /// at or before it; `is_lt`: before it).
    pub fn count_before(&self, target: &Cell, before: fn(Ordering) -> bool) -> usize {
        self.search
            .partition(&self.blocks, |b| &b.first, target, before)
    }

    /// The bytes it holds in memory.
    pub fn weight(&self) -> usize {
        self.weight
    }
}

/// Largest index block the writer makes before adding a level.
pub const MAX_INDEX_BLOCK: usize = 64 * 1024;

/// One entry: the first key below it, and where that block is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexEntry {
    /// Index-key encoding: cell key + sequence id.
    pub key: Vec<u8>,
    pub offset: u64,
    pub size: u64,
}

impl IndexEntry {
    fn encoded_len(&self) -> usize {
        self.key.len() + 30
    }
}

/// The payload of an index block holding `entries`.
pub fn encode(entries: &[IndexEntry]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut offsets = Vec::with_capacity(entries.len());
    for e in entries {
        offsets.push(body.len() as u32);
        varint::put(&mut body, e.key.len() as u64);
        body.extend_from_slice(&e.key);
        varint::put(&mut body, e.offset);
        varint::put(&mut body, e.size);
    }
    let mut out = Vec::with_capacity(4 + 4 * entries.len() + body.len());
    out.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    for o in offsets {
        out.extend_from_slice(&o.to_be_bytes());
    }
    out.extend_from_slice(&body);
    out
}

/// The entries of an index block payload.
pub fn decode(payload: &[u8]) -> Result<Vec<IndexEntry>, String> {
    let be32 = |at: usize| -> Option<usize> {
        Some(u32::from_be_bytes(payload.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    let count = be32(0).ok_or("index block shorter than its entry count")?;
    let body_at = count
        .checked_mul(4)
        .and_then(|n| n.checked_add(4))
        .filter(|&b| b <= payload.len())
        .ok_or_else(|| format!("{count} index entries do not fit the block"))?;
    let body = &payload[body_at..];
    let mut entries = Vec::with_capacity(count);
    for i in 0..count {
        let at = be32(4 + 4 * i).ok_or("index offsets truncated")?;
        let mut pos = at;
        let bad = || format!("index entry {i} at payload offset {at} is truncated");
        let key_len = varint::get(body, &mut pos).ok_or_else(bad)? as usize;
        let key_end = pos
            .checked_add(key_len)
            .filter(|&e| e <= body.len())
            .ok_or_else(bad)?;
        let key = body[pos..key_end].to_vec();
        pos = key_end;
        let offset = varint::get(body, &mut pos).ok_or_else(bad)?;
        let size = varint::get(body, &mut pos).ok_or_else(bad)?;
        entries.push(IndexEntry { key, offset, size });
    }
    Ok(entries)
}

/// Cuts a level's entries into runs that each encode to at most `max_block` bytes, except
/// that a run always takes at least two entries: every level is then at most half the one
/// below, so building levels ends even when single entries exceed `max_block`.
pub fn split_level(entries: &[IndexEntry], max_block: usize) -> Vec<&[IndexEntry]> {
    let mut runs = Vec::new();
    let (mut start, mut size) = (0, 4);
    for (i, e) in entries.iter().enumerate() {
        let len = e.encoded_len() + 4;
        if i >= start + 2 && size + len > max_block {
            runs.push(&entries[start..i]);
            start = i;
            size = 4;
        }
        size += len;
    }
    if start < entries.len() {
        runs.push(&entries[start..]);
    }
    runs
}

/// Whether one index block can hold the whole level.
pub fn fits(entries: &[IndexEntry], max_block: usize) -> bool {
    4 + entries.iter().map(|e| e.encoded_len() + 4).sum::<usize>() <= max_block
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_splits() {
        let entries: Vec<IndexEntry> = (0..100u64)
            .map(|i| IndexEntry {
                key: format!("key{i:04}").into_bytes(),
                offset: i * 1000,
                size: 999,
            })
            .collect();
        assert_eq!(decode(&encode(&entries)).unwrap(), entries);
        let runs = split_level(&entries, 200);
        assert!(runs.len() > 1);
        assert_eq!(runs.iter().map(|r| r.len()).sum::<usize>(), 100);
        assert!(runs.iter().all(|r| encode(r).len() <= 200 || r.len() == 2));
        assert!(runs.iter().all(|r| r.len() >= 2), "every level halves");
        assert_eq!(split_level(&entries, 1).len(), 50);
        assert!(decode(&[0, 0, 0, 9]).is_err());
    }
}
