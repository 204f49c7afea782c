//! The bloom filter block (docs/design/storefile.md, "Bloom block").

use basalt_common::{BloomType, Cell};
use xxhash_rust::xxh3::xxh3_64;

use crate::index::{self, IndexEntry};
use crate::key::Step;

const BITS_PER_KEY: usize = 10;
const HASHES: u8 = 7;
/// The largest bloom chunk the writer makes, in bytes of bits (HBase's
/// `io.storefile.bloom.block.size`): a file with more keys than one chunk holds gets a
/// partitioned filter, each chunk covering a run of rows and read only when asked about them.
pub const MAX_BLOOM_CHUNK: usize = 128 * 1024;

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

/// Collects the hashes of a file's distinct bloom keys, in chunks of at most `chunk_keys`
/// keys that each start at a new row (or a new prefix): a row's keys all fall in one chunk.
#[derive(Debug)]
pub struct BloomBuilder {
    kind: BloomType,
    /// For ROWPREFIX_FIXED_LENGTH: the prefix length.
    prefix_len: usize,
    hashes: Vec<u64>,
    scratch: Vec<u8>,
    /// Each chunk's first key (the row, or the prefix for ROWPREFIX_FIXED_LENGTH) and the
    /// index of its first hash.
    chunks: Vec<(Vec<u8>, usize)>,
    chunk_keys: usize,
}

/// One chunk of a finished filter: the first key it covers and its block payload.
#[derive(Debug)]
pub struct BloomChunk {
    pub first_key: Vec<u8>,
    pub payload: Vec<u8>,
}

impl BloomBuilder {
    /// A builder for ROW, ROWCOL or ROWPREFIX_FIXED_LENGTH (keyed on the first `prefix_len`
    /// bytes of each row, which must then be positive); `None` for NONE. Its chunks hold up
    /// to `chunk_bytes` bytes of bits each.
    pub fn new(kind: BloomType, prefix_len: usize, chunk_bytes: usize) -> Option<Self> {
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
            chunks: Vec::new(),
            chunk_keys: (chunk_bytes * 8 / BITS_PER_KEY).max(1),
        })
    }

    /// Before the key of a new row (or prefix) `key`: starts a chunk if the current one is
    /// full (or there is none yet).
    fn at_row(&mut self, key: &[u8]) {
        let full = self
            .chunks
            .last()
            .is_none_or(|&(_, start)| self.hashes.len() - start >= self.chunk_keys);
        if full {
            self.chunks.push((key.to_vec(), self.hashes.len()));
        }
    }

    /// Adds the key of `cell`, which stands `step` after the cell added before it: cells
    /// arrive sorted, so a key repeats only within a row (ROW) or a column (ROWCOL).
    pub fn add(&mut self, cell: &Cell, step: Step) {
        match (self.kind, step) {
            (BloomType::Row, Step::NewRow) => {
                self.at_row(cell.row());
                self.hashes.push(xxh3_64(cell.row()));
            }
            (BloomType::RowPrefixFixedLength, Step::NewRow) => {
                // Rows sharing a prefix arrive together: the prefix is hashed once.
                let p = prefix(cell.row(), self.prefix_len);
                if self.scratch != p || self.hashes.is_empty() {
                    self.at_row(p);
                    self.scratch.clear();
                    self.scratch.extend_from_slice(p);
                    self.hashes.push(xxh3_64(p));
                }
            }
            (BloomType::RowCol, Step::NewRow | Step::NewColumn) => {
                if step == Step::NewRow {
                    self.at_row(cell.row());
                }
                bloom_key(self.kind, cell.row(), cell.qualifier(), &mut self.scratch);
                self.hashes.push(xxh3_64(&self.scratch));
            }
            _ => {}
        }
    }

    /// Takes in the hashes of `later`, built over keys that follow this builder's. A key at
    /// the seam that both hold is hashed twice, which sets the same bits twice. `later`'s
    /// first chunk joins this builder's last one: a prefix may continue across the seam, and
    /// its keys must stay in one chunk.
    pub fn append(&mut self, later: BloomBuilder) {
        let base = self.hashes.len();
        let skip = usize::from(!self.chunks.is_empty());
        self.chunks.extend(
            later
                .chunks
                .into_iter()
                .skip(skip)
                .map(|(key, start)| (key, base + start)),
        );
        if !later.hashes.is_empty() {
            // The last prefix seen, so that more rows of it are not hashed again.
            self.scratch = later.scratch;
        }
        self.hashes.extend(later.hashes);
    }

    /// The filter's chunks, in key order (one for a filter of at most a chunk's keys).
    pub fn finish(&self) -> Vec<BloomChunk> {
        let mut chunks = Vec::with_capacity(self.chunks.len());
        for (i, (key, start)) in self.chunks.iter().enumerate() {
            let end = self.chunks.get(i + 1).map_or(self.hashes.len(), |c| c.1);
            chunks.push(BloomChunk {
                first_key: key.clone(),
                payload: self.filter_of(&self.hashes[*start..end]),
            });
        }
        if chunks.is_empty() {
            chunks.push(BloomChunk {
                first_key: Vec::new(),
                payload: self.filter_of(&[]),
            });
        }
        chunks
    }

    /// The block payload of a filter over `hashes`. A large filter's bits are set by two
    /// threads, each over half the keys: a flush's file has one key per row, and this runs
    /// after its last cell.
    fn filter_of(&self, hashes: &[u64]) -> Vec<u8> {
        /// Fewer keys than this are not worth a thread.
        const PARALLEL_KEYS: usize = 1 << 16;
        // The block stores the bit count in 32 bits.
        let m = u32::try_from((hashes.len() * BITS_PER_KEY).max(64)).unwrap_or(u32::MAX);
        let modulus = Modulus::new(m);
        let set = |hashes: &[u64], bits: &mut [u8]| {
            for &h in hashes {
                for bit in probes(h, HASHES, modulus) {
                    bits[(bit / 8) as usize] |= 1 << (bit % 8);
                }
            }
        };
        let mut out = vec![kind_code(self.kind), HASHES];
        out.extend_from_slice(&m.to_be_bytes());
        if self.kind == BloomType::RowPrefixFixedLength {
            out.extend_from_slice(&(self.prefix_len as u32).to_be_bytes());
        }
        let header = out.len();
        out.resize(header + m.div_ceil(8) as usize, 0);
        let bits = &mut out[header..];
        let len = bits.len();
        let half = if hashes.len() >= PARALLEL_KEYS {
            hashes.len() / 2
        } else {
            hashes.len()
        };
        let (mine, theirs) = hashes.split_at(half);
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

/// The kind's code in a bloom or bloom index block.
fn kind_code(kind: BloomType) -> u8 {
    match kind {
        BloomType::RowCol => 2,
        BloomType::RowPrefixFixedLength => 3,
        _ => 1,
    }
}

fn kind_of_code(code: u8) -> Result<BloomType, String> {
    Ok(match code {
        1 => BloomType::Row,
        2 => BloomType::RowCol,
        3 => BloomType::RowPrefixFixedLength,
        other => return Err(format!("unknown bloom kind {other}")),
    })
}

/// The top of a chunked (partitioned) filter: each chunk's first key and where it lies. A
/// chunk covers the rows from its first key to the next chunk's.
#[derive(Debug, Clone)]
pub struct BloomIndex {
    kind: BloomType,
    prefix_len: usize,
    chunks: Vec<IndexEntry>,
}

impl BloomIndex {
    /// The payload of a bloom index block: the kind, the prefix length and an index block
    /// payload over the chunks.
    pub fn encode(kind: BloomType, prefix_len: usize, chunks: &[IndexEntry]) -> Vec<u8> {
        let mut out = vec![kind_code(kind)];
        let prefix_len = if kind == BloomType::RowPrefixFixedLength {
            u32::try_from(prefix_len).unwrap_or(0)
        } else {
            0
        };
        out.extend_from_slice(&prefix_len.to_be_bytes());
        out.extend_from_slice(&index::encode(chunks));
        out
    }

    pub fn decode(payload: &[u8]) -> Result<Self, String> {
        let (Some(&code), Some(len)) = (payload.first(), payload.get(1..5)) else {
            return Err("bloom index block shorter than its header".into());
        };
        let kind = kind_of_code(code)?;
        let prefix_len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        if (kind == BloomType::RowPrefixFixedLength) != (prefix_len > 0) {
            return Err(format!(
                "bloom index: {kind} with a prefix length of {prefix_len}"
            ));
        }
        let chunks = index::decode(&payload[5..])?;
        if chunks.is_empty() {
            return Err("bloom index lists no chunks".into());
        }
        if chunks.windows(2).any(|w| w[0].key > w[1].key) {
            return Err("bloom index keys out of order".into());
        }
        Ok(BloomIndex {
            kind,
            prefix_len,
            chunks,
        })
    }

    pub fn kind(&self) -> BloomType {
        self.kind
    }

    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The chunk that holds `row`'s keys if the file has any: the last one starting at or
    /// before the row (its prefix, for ROWPREFIX_FIXED_LENGTH); none before the first.
    pub fn chunk_of(&self, row: &[u8]) -> Option<&IndexEntry> {
        let key = match self.kind {
            BloomType::RowPrefixFixedLength => prefix(row, self.prefix_len),
            _ => row,
        };
        let after = self.chunks.partition_point(|c| c.key.as_slice() <= key);
        after.checked_sub(1).map(|i| &self.chunks[i])
    }

    /// The bytes it holds in memory.
    pub fn weight(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| std::mem::size_of::<IndexEntry>() + c.key.len())
            .sum()
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
        let kind = kind_of_code(payload[0])?;
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

    /// The payload of a builder's only chunk.
    fn single(b: &BloomBuilder) -> Vec<u8> {
        let mut chunks = b.finish();
        assert_eq!(chunks.len(), 1, "one chunk");
        chunks.remove(0).payload
    }

    /// The filter of each chunk, behind an index as a file holds them (offsets are the
    /// chunks' places in the list).
    fn chunked(b: &BloomBuilder) -> (BloomIndex, Vec<BloomFilter>) {
        let chunks = b.finish();
        let entries: Vec<IndexEntry> = chunks
            .iter()
            .enumerate()
            .map(|(i, c)| IndexEntry {
                key: c.first_key.clone(),
                offset: i as u64,
                size: 1,
            })
            .collect();
        let index =
            BloomIndex::decode(&BloomIndex::encode(b.kind, b.prefix_len, &entries)).unwrap();
        let filters = chunks
            .iter()
            .map(|c| BloomFilter::decode(&c.payload).unwrap())
            .collect();
        (index, filters)
    }

    fn ask(index: &BloomIndex, filters: &[BloomFilter], row: &[u8], q: &[u8]) -> bool {
        index
            .chunk_of(row)
            .is_some_and(|c| filters[c.offset as usize].may_contain_column(row, q))
    }

    /// A filter of more keys than a chunk holds is cut at row starts, and every key is found
    /// in the chunk its row leads to; the parts of a parallel flush join at the seam, so a
    /// prefix that continues across it stays in one chunk.
    #[test]
    fn chunks_cover_every_row_they_hold() {
        for kind in [
            BloomType::Row,
            BloomType::RowCol,
            BloomType::RowPrefixFixedLength,
        ] {
            let prefix_len = if kind == BloomType::RowPrefixFixedLength {
                5
            } else {
                0
            };
            // 100 bytes of bits: 80 keys a chunk.
            let new = || BloomBuilder::new(kind, prefix_len, 100).unwrap();
            let rows: Vec<String> = (0..2_000)
                .map(|i| format!("r{:04}-{}", i / 3, i % 3))
                .collect();
            let (mut first, mut second) = (new(), new());
            for (i, row) in rows.iter().enumerate() {
                let b = if i < 1_000 { &mut first } else { &mut second };
                for (q, step) in [(b"a", Step::NewRow), (b"b", Step::NewColumn)] {
                    b.add(&Cell::put(row.as_bytes(), b"cf", q, 1, b""), step);
                }
            }
            let second_chunks = second.chunks.len();
            let first_chunks = first.chunks.len();
            first.append(second);
            assert_eq!(
                first.chunks.len(),
                first_chunks + second_chunks - 1,
                "{kind}"
            );
            let (index, filters) = chunked(&first);
            assert!(
                index.chunk_count() > 5,
                "{kind}: {} chunks",
                index.chunk_count()
            );
            for row in &rows {
                for q in [b"a", b"b"] {
                    assert!(ask(&index, &filters, row.as_bytes(), q), "{kind}: {row}");
                }
            }
            assert!(index.chunk_of(b"a").is_none(), "before the first chunk");
            let absent = (0..1_000)
                .filter(|i| ask(&index, &filters, format!("s{i:04}").as_bytes(), b"a"))
                .count();
            assert!(absent < 100, "{kind}: {absent} false positives of 1000");
        }
        assert!(BloomIndex::decode(&BloomIndex::encode(BloomType::Row, 0, &[])).is_err());
        assert!(BloomIndex::decode(&[3, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }

    #[test]
    fn no_false_negatives_and_few_false_positives() {
        for kind in [BloomType::Row, BloomType::RowCol] {
            let mut b = BloomBuilder::new(kind, 0, MAX_BLOOM_CHUNK).unwrap();
            for i in 0..1_000 {
                let cell = Cell::put(format!("row{i:05}").as_bytes(), b"cf", b"q", 1, b"");
                b.add(&cell, Step::NewRow);
                // Later versions of the same column add nothing.
                b.add(&cell, Step::SameColumn);
            }
            let f = BloomFilter::decode(&single(&b)).unwrap();
            assert_eq!(f.bit_count(), (1_000 * BITS_PER_KEY) as u64);
            for i in 0..1_000 {
                assert!(f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"));
            }
            let false_positives = (1_000..11_000)
                .filter(|i| f.may_contain_column(format!("row{i:05}").as_bytes(), b"q"))
                .count();
            assert!(false_positives < 300, "{kind}: {false_positives} of 10000");
        }
        assert!(BloomBuilder::new(BloomType::None, 0, MAX_BLOOM_CHUNK).is_none());
        assert!(BloomBuilder::new(BloomType::RowPrefixFixedLength, 0, MAX_BLOOM_CHUNK).is_none());
        assert!(BloomFilter::decode(&[1, 7, 0, 0, 0, 64]).is_err());
    }

    #[test]
    fn a_prefix_filter_keys_on_the_first_bytes_of_each_row() {
        let mut b = BloomBuilder::new(BloomType::RowPrefixFixedLength, 4, MAX_BLOOM_CHUNK).unwrap();
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
        let f = BloomFilter::decode(&single(&b)).unwrap();
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
            let mut b = BloomBuilder::new(BloomType::Row, 0, MAX_BLOOM_CHUNK).unwrap();
            let rows: Vec<String> = (0..n).map(|i| format!("user{i:07}")).collect();
            for row in &rows {
                b.add(
                    &Cell::put(row.as_bytes(), b"cf", b"q", 1, b""),
                    Step::NewRow,
                );
            }
            let payload = single(&b);
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
