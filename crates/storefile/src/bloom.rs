//! The bloom filter block (docs/design/storefile.md, "Bloom block").

use basalt_common::{BloomType, Cell};
use xxhash_rust::xxh3::xxh3_64;

use crate::key::Step;

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

/// The part of `row` a ROWPREFIX_FIXED_LENGTH filter keys on: its first `len` bytes, or the
/// whole row when it is shorter (as HBase's `RowPrefixFixedLengthBloomContext` does).
fn prefix(row: &[u8], len: usize) -> &[u8] {
    &row[..row.len().min(len)]
}

/// `x % d` for 32-bit `x` and a fixed `d`, by multiplications instead of a division
/// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019): exact for every
/// 32-bit `x` and nonzero `d`.
#[derive(Debug, Clone, Copy)]
struct Modulus {
    d: u32,
    /// `2^64 / d`, rounded up (0 for `d` = 1, whose remainders are all 0).
    inverse: u64,
}

impl Modulus {
    fn new(d: u32) -> Self {
        debug_assert!(d > 0);
        Modulus {
            d,
            inverse: (u64::MAX / u64::from(d.max(1))).wrapping_add(1),
        }
    }

    #[inline]
    fn of(self, x: u32) -> u64 {
        let low = self.inverse.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.d)) >> 64) as u64
    }
}

/// The `k` bit positions of a key's hash in a filter of `m` bits (the format's
/// `(h1 + i * h2) mod m`, with `h1` and `h2` the hash's low and high 32 bits).
fn probes(hash: u64, k: u8, m: Modulus) -> impl Iterator<Item = u64> {
    let (h1, h2) = (hash as u32, (hash >> 32) as u32);
    (0..u32::from(k)).map(move |i| m.of(h1.wrapping_add(i.wrapping_mul(h2))))
}

/// Collects the hashes of a file's distinct bloom keys.
#[derive(Debug)]
pub struct BloomBuilder {
    kind: BloomType,
    /// For ROWPREFIX_FIXED_LENGTH: the prefix length.
    prefix_len: usize,
    hashes: Vec<u64>,
    scratch: Vec<u8>,
}

impl BloomBuilder {
    /// A builder for ROW, ROWCOL or ROWPREFIX_FIXED_LENGTH (keyed on the first `prefix_len`
    /// bytes of each row, which must then be positive); `None` for NONE.
    pub fn new(kind: BloomType, prefix_len: usize) -> Option<Self> {
        let usable = match kind {
            BloomType::Row | BloomType::RowCol => true,
            BloomType::RowPrefixFixedLength => prefix_len > 0 && u32::try_from(prefix_len).is_ok(),
            _ => false,
        };
        usable.then(|| BloomBuilder {
            kind,
            prefix_len,
            hashes: Vec::new(),
            scratch: Vec::new(),
        })
    }

    /// Adds the key of `cell`, which stands `step` after the cell added before it: cells
    /// arrive sorted, so a key repeats only within a row (ROW) or a column (ROWCOL).
    pub fn add(&mut self, cell: &Cell, step: Step) {
        match (self.kind, step) {
            (BloomType::Row, Step::NewRow) => self.hashes.push(xxh3_64(cell.row())),
            (BloomType::RowPrefixFixedLength, Step::NewRow) => {
                // Rows sharing a prefix arrive together: the prefix is hashed once.
                let p = prefix(cell.row(), self.prefix_len);
                if self.scratch != p || self.hashes.is_empty() {
                    self.scratch.clear();
                    self.scratch.extend_from_slice(p);
                    self.hashes.push(xxh3_64(p));
                }
            }
            (BloomType::RowCol, Step::NewRow | Step::NewColumn) => {
                bloom_key(self.kind, cell.row(), cell.qualifier(), &mut self.scratch);
                self.hashes.push(xxh3_64(&self.scratch));
            }
            _ => {}
        }
    }

    /// Takes in the hashes of `later`, built over keys that follow this builder's. A key at
    /// the seam that both hold is hashed twice, which sets the same bits twice.
    pub fn append(&mut self, later: BloomBuilder) {
        self.hashes.extend(later.hashes);
    }

    /// The block payload. A large filter's bits are set by two threads, each over half the
    /// keys: a flush's file has one key per row, and this runs after its last cell.
    pub fn finish(&self) -> Vec<u8> {
        /// Fewer keys than this are not worth a thread.
        const PARALLEL_KEYS: usize = 1 << 16;
        // The block stores the bit count in 32 bits.
        let m = u32::try_from((self.hashes.len() * BITS_PER_KEY).max(64)).unwrap_or(u32::MAX);
        let modulus = Modulus::new(m);
        let set = |hashes: &[u64], bits: &mut [u8]| {
            for &h in hashes {
                for bit in probes(h, HASHES, modulus) {
                    bits[(bit / 8) as usize] |= 1 << (bit % 8);
                }
            }
        };
        let code = match self.kind {
            BloomType::RowCol => 2,
            BloomType::RowPrefixFixedLength => 3,
            _ => 1,
        };
        let mut out = vec![code, HASHES];
        out.extend_from_slice(&m.to_be_bytes());
        if self.kind == BloomType::RowPrefixFixedLength {
            out.extend_from_slice(&(self.prefix_len as u32).to_be_bytes());
        }
        let header = out.len();
        out.resize(header + m.div_ceil(8) as usize, 0);
        let bits = &mut out[header..];
        let len = bits.len();
        let half = if self.hashes.len() >= PARALLEL_KEYS {
            self.hashes.len() / 2
        } else {
            self.hashes.len()
        };
        let (mine, theirs) = self.hashes.split_at(half);
        std::thread::scope(|scope| {
            let helper = (!theirs.is_empty())
                .then(|| {
                    std::thread::Builder::new()
                        .name("bloom-bits".into())
                        .spawn_scoped(scope, || {
                            let mut more = vec![0u8; len];
                            set(theirs, &mut more);
                            more
                        })
                        .ok()
                })
                .flatten();
            set(mine, bits);
            // Without a helper (none started, or it panicked), this thread sets the rest.
            match helper.and_then(|h| h.join().ok()) {
                Some(more) => bits.iter_mut().zip(&more).for_each(|(b, m)| *b |= m),
                None => set(theirs, bits),
            }
        });
        out
    }
}

/// A loaded bloom filter.
#[derive(Debug, Clone)]
pub struct BloomFilter {
    kind: BloomType,
    /// For ROWPREFIX_FIXED_LENGTH: the prefix length.
    prefix_len: usize,
    k: u8,
    /// The bit count, with the remainder it takes computed once for every probe.
    m: Modulus,
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
            3 => BloomType::RowPrefixFixedLength,
            other => return Err(format!("unknown bloom kind {other}")),
        };
        let k = payload[1];
        let m = u64::from(u32::from_be_bytes([
            payload[2], payload[3], payload[4], payload[5],
        ]));
        let (prefix_len, bits) = if kind == BloomType::RowPrefixFixedLength {
            let Some(len) = payload.get(6..10) else {
                return Err("bloom block shorter than its prefix length".into());
            };
            let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
            if len == 0 {
                return Err("bloom block with a prefix length of 0".into());
            }
            (len, payload[10..].to_vec())
        } else {
            (0, payload[6..].to_vec())
        };
        if k == 0 || m == 0 || bits.len() as u64 != m.div_ceil(8) {
            return Err(format!(
                "bloom block: {k} hashes over {m} bits in {} bytes",
                bits.len()
            ));
        }
        Ok(BloomFilter {
            kind,
            prefix_len,
            k,
            // Read from 32 bits, and not 0.
            m: Modulus::new(m as u32),
            bits,
        })
    }

    pub fn kind(&self) -> BloomType {
        self.kind
    }

    pub fn bit_count(&self) -> u64 {
        u64::from(self.m.d)
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
        match self.kind {
            BloomType::Row => self.contains_key(row),
            BloomType::RowPrefixFixedLength => self.contains_key(prefix(row, self.prefix_len)),
            _ => true,
        }
    }

    /// False only if the file surely holds no cell of column `row, qualifier`.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        if self.kind != BloomType::RowCol {
            return self.may_contain_row(row);
        }
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
            let mut b = BloomBuilder::new(kind, 0).unwrap();
            for i in 0..1_000 {
                let cell = Cell::put(format!("row{i:05}").as_bytes(), b"cf", b"q", 1, b"");
                b.add(&cell, Step::NewRow);
                // Later versions of the same column add nothing.
                b.add(&cell, Step::SameColumn);
            }
            let f = BloomFilter::decode(&b.finish()).unwrap();
            assert_eq!(f.bit_count(), (1_000 * BITS_PER_KEY) as u64);
            for i in 0..1_000 {
                assert!(f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"));
            }
            let false_positives = (1_000..11_000)
                .filter(|i| f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"))
                .count();
            assert!(false_positives < 300, "{kind}: {false_positives} of 10000");
        }
        assert!(BloomBuilder::new(BloomType::None, 0).is_none());
        assert!(BloomBuilder::new(BloomType::RowPrefixFixedLength, 0).is_none());
        assert!(BloomFilter::decode(&[1, 7, 0, 0, 0, 64]).is_err());
    }

    #[test]
    fn a_prefix_filter_keys_on_the_first_bytes_of_each_row() {
        let mut b = BloomBuilder::new(BloomType::RowPrefixFixedLength, 4).unwrap();
        for user in 0..100 {
            for event in 0..10 {
                let row = format!("u{user:03}/event{event}");
                b.add(
                    &Cell::put(row.as_bytes(), b"cf", b"q", 1, b""),
                    Step::NewRow,
                );
            }
        }
        b.add(&Cell::put(b"ab", b"cf", b"q", 1, b""), Step::NewRow);
        assert_eq!(b.hashes.len(), 101, "one key per prefix");
        let f = BloomFilter::decode(&b.finish()).unwrap();
        assert_eq!(f.kind(), BloomType::RowPrefixFixedLength);
        for user in 0..100 {
            assert!(f.may_contain_row(format!("u{user:03}/anything").as_bytes()));
            assert!(f.may_contain_column(format!("u{user:03}").as_bytes(), b"q"));
        }
        assert!(
            f.may_contain_row(b"ab"),
            "a row shorter than the prefix: itself"
        );
        let absent = (100..1_100)
            .filter(|u| f.may_contain_row(format!("u{u:03}x").as_bytes()))
            .count();
        assert!(absent < 100, "{absent} false positives of 1000");
        assert!(BloomFilter::decode(&[3, 7, 0, 0, 0, 64, 0, 0]).is_err());
        assert!(BloomFilter::decode(&[3, 7, 0, 0, 0, 64, 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn the_remainder_by_multiplication_is_exact() {
        let mut x: u32 = 0x9E37_79B9;
        for d in [
            1,
            2,
            3,
            7,
            64,
            1_000,
            10_007,
            1 << 31,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let m = Modulus::new(d);
            for probe in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX] {
                assert_eq!(m.of(probe), u64::from(probe % d), "{probe} mod {d}");
            }
            for _ in 0..10_000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                assert_eq!(m.of(x), u64::from(x % d), "{x} mod {d}");
            }
        }
    }

    /// The block's bits are the documented `(h1 + i * h2) mod m`, computed here with `%`: for
    /// a small filter, and for one large enough that two threads set its bits.
    #[test]
    fn the_bits_follow_the_format() {
        for n in [500, 70_000] {
            let mut b = BloomBuilder::new(BloomType::Row, 0).unwrap();
            let rows: Vec<String> = (0..n).map(|i| format!("user{i:07}")).collect();
            for row in &rows {
                b.add(
                    &Cell::put(row.as_bytes(), b"cf", b"q", 1, b""),
                    Step::NewRow,
                );
            }
            let payload = b.finish();
            let m = (n * BITS_PER_KEY) as u64;
            let mut bits = vec![0u8; m.div_ceil(8) as usize];
            for row in &rows {
                let hash = xxh3_64(row.as_bytes());
                let (h1, h2) = (hash as u32, (hash >> 32) as u32);
                for i in 0..u32::from(HASHES) {
                    let bit = u64::from(h1.wrapping_add(i.wrapping_mul(h2))) % m;
                    bits[(bit / 8) as usize] |= 1 << (bit % 8);
                }
            }
            assert_eq!(&payload[..2], &[1, HASHES]);
            assert_eq!(&payload[2..6], &(m as u32).to_be_bytes());
            assert!(payload[6..] == bits[..], "{n} keys");
        }
    }
}
