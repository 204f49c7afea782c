//! The bloom filter block (docs/design/storefile.md, "Bloom block").

use basalt_common::{BloomType, Cell};
use xxhash_rust::xxh3::xxh3_64;

const BITS_PER_KEY: usize = 10;
const HASHES: u8 = 7;

fn bloom_key(kind: BloomType, row: &[u8], qualifier: &[u8], out: &mut Vec<u8>) {
    out.clear();
    match kind {
        BloomType::RowCol => {
            out.extend_from_slice(&(row.len() as u16).to_be_bytes());
            out.extend_from_slice(row);
            out.extend_from_slice(qualifier);
        }
        _ => out.extend_from_slice(row),
    }
}

fn probes(hash: u64, k: u8, m: u64) -> impl Iterator<Item = u64> {
    let (h1, h2) = (hash as u32, (hash >> 32) as u32);
    (0..u32::from(k)).map(move |i| u64::from(h1.wrapping_add(i.wrapping_mul(h2))) % m)
}

/// Collects the hashes of a file's distinct bloom keys.
#[derive(Debug)]
pub struct BloomBuilder {
    kind: BloomType,
    hashes: Vec<u64>,
    last: Vec<u8>,
    scratch: Vec<u8>,
}

impl BloomBuilder {
    /// A builder for ROW or ROWCOL; `None` for other kinds.
    pub fn new(kind: BloomType) -> Option<Self> {
        matches!(kind, BloomType::Row | BloomType::RowCol).then(|| BloomBuilder {
            kind,
            hashes: Vec::new(),
            last: Vec::new(),
            scratch: Vec::new(),
        })
    }

    pub fn add(&mut self, cell: &Cell) {
        bloom_key(self.kind, cell.row(), cell.qualifier(), &mut self.scratch);
        // Cells arrive sorted, so repeats of a key are adjacent.
        if self.hashes.is_empty() || self.scratch != self.last {
            self.hashes.push(xxh3_64(&self.scratch));
            std::mem::swap(&mut self.last, &mut self.scratch);
        }
    }

    /// The block payload.
    pub fn finish(&self) -> Vec<u8> {
        let m = (self.hashes.len() * BITS_PER_KEY).max(64) as u64;
        let mut bits = vec![0u8; m.div_ceil(8) as usize];
        for &h in &self.hashes {
            for bit in probes(h, HASHES, m) {
                bits[(bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        let mut out = vec![if self.kind == BloomType::RowCol { 2 } else { 1 }, HASHES];
        out.extend_from_slice(&(m as u32).to_be_bytes());
        out.extend_from_slice(&bits);
        out
    }
}

/// A loaded bloom filter.
#[derive(Debug, Clone)]
pub struct BloomFilter {
    kind: BloomType,
    k: u8,
    m: u64,
    bits: Vec<u8>,
}

impl BloomFilter {
    pub fn decode(payload: &[u8]) -> Result<Self, String> {
        if payload.len() < 6 {
            return Err("bloom block shorter than its header".into());
        }
        let kind = match payload[0] {
            1 => BloomType::Row,
            2 => BloomType::RowCol,
            other => return Err(format!("unknown bloom kind {other}")),
        };
        let k = payload[1];
        let m = u64::from(u32::from_be_bytes([
            payload[2], payload[3], payload[4], payload[5],
        ]));
        let bits = payload[6..].to_vec();
        if k == 0 || m == 0 || bits.len() as u64 != m.div_ceil(8) {
            return Err(format!(
                "bloom block: {k} hashes over {m} bits in {} bytes",
                bits.len()
            ));
        }
        Ok(BloomFilter { kind, k, m, bits })
    }

    pub fn kind(&self) -> BloomType {
        self.kind
    }

    pub fn bit_count(&self) -> u64 {
        self.m
    }

    pub fn hash_count(&self) -> u8 {
        self.k
    }

    fn contains_key(&self, key: &[u8]) -> bool {
        probes(xxh3_64(key), self.k, self.m)
            .all(|bit| self.bits[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
    }

    /// False only if the file surely holds no cell of `row`. A ROWCOL filter cannot tell.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        self.kind != BloomType::Row || self.contains_key(row)
    }

    /// False only if the file surely holds no cell of column `row, qualifier`.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        let mut key = Vec::new();
        bloom_key(self.kind, row, qualifier, &mut key);
        self.contains_key(&key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        for kind in [BloomType::Row, BloomType::RowCol] {
            let mut b = BloomBuilder::new(kind).unwrap();
            for i in 0..1_000 {
                b.add(&Cell::put(
                    format!("row{i:05}").as_bytes(),
                    b"cf",
                    b"q",
                    1,
                    b"",
                ));
            }
            let f = BloomFilter::decode(&b.finish()).unwrap();
            for i in 0..1_000 {
                assert!(f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"));
            }
            let false_positives = (1_000..11_000)
                .filter(|i| f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"))
                .count();
            assert!(false_positives < 300, "{kind}: {false_positives} of 10000");
        }
        assert!(BloomBuilder::new(BloomType::None).is_none());
        assert!(BloomFilter::decode(&[1, 7, 0, 0, 0, 64]).is_err());
    }
}
