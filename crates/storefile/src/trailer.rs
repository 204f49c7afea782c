//! The fixed 64-byte trailer (docs/design/storefile.md, "Trailer").

pub const TRAILER_LEN: usize = 64;
pub const MAGIC: &[u8; 8] = b"BSLTSTFL";
pub const MAJOR_VERSION: u16 = 1;
/// 1: data block records mark the first cell of each row (flags bit 1), and restarts fall on
/// row starts where they can. 2: a bloom filter of more than one chunk is written as its
/// chunks and a bloom index block (`BLMI`) that the trailer's bloom offset names.
pub const MINOR_VERSION: u16 = 2;

/// Where the load-on-open blocks are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trailer {
    pub major_version: u16,
    pub minor_version: u16,
    pub root_index_offset: u64,
    pub root_index_size: u32,
    pub index_levels: u8,
    pub bloom_offset: u64,
    pub bloom_size: u32,
    pub file_info_offset: u64,
    pub file_info_size: u32,
    pub cell_count: u64,
}

impl Trailer {
    pub fn encode(&self) -> [u8; TRAILER_LEN] {
        let mut t = [0u8; TRAILER_LEN];
        t[0..8].copy_from_slice(MAGIC);
        t[8..10].copy_from_slice(&self.major_version.to_be_bytes());
        t[10..12].copy_from_slice(&self.minor_version.to_be_bytes());
        t[12..20].copy_from_slice(&self.root_index_offset.to_be_bytes());
        t[20..24].copy_from_slice(&self.root_index_size.to_be_bytes());
        t[24] = self.index_levels;
        t[28..36].copy_from_slice(&self.bloom_offset.to_be_bytes());
        t[36..40].copy_from_slice(&self.bloom_size.to_be_bytes());
        t[40..48].copy_from_slice(&self.file_info_offset.to_be_bytes());
        t[48..52].copy_from_slice(&self.file_info_size.to_be_bytes());
        t[52..60].copy_from_slice(&self.cell_count.to_be_bytes());
        let crc = crc32c::crc32c(&t[..60]);
        t[60..64].copy_from_slice(&crc.to_be_bytes());
        t
    }

    /// Parses and checks a trailer; the error says what is wrong with it.
    pub fn decode(t: &[u8]) -> Result<Trailer, String> {
        if t.len() != TRAILER_LEN {
            return Err(format!("trailer is {} bytes, not {TRAILER_LEN}", t.len()));
        }
        if &t[0..8] != MAGIC {
            return Err(format!(
                "bad trailer magic {:?}: not a Basalt store file",
                String::from_utf8_lossy(&t[0..8])
            ));
        }
        let u16_at = |a: usize| u16::from_be_bytes([t[a], t[a + 1]]);
        let u32_at = |a: usize| u32::from_be_bytes([t[a], t[a + 1], t[a + 2], t[a + 3]]);
        let u64_at = |a: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&t[a..a + 8]);
            u64::from_be_bytes(b)
        };
        let (stored, computed) = (u32_at(60), crc32c::crc32c(&t[..60]));
        if stored != computed {
            return Err(format!(
                "trailer checksum mismatch: stored {stored:08x}, computed {computed:08x}"
            ));
        }
        let trailer = Trailer {
            major_version: u16_at(8),
            minor_version: u16_at(10),
            root_index_offset: u64_at(12),
            root_index_size: u32_at(20),
            index_levels: t[24],
            bloom_offset: u64_at(28),
            bloom_size: u32_at(36),
            file_info_offset: u64_at(40),
            file_info_size: u32_at(48),
            cell_count: u64_at(52),
        };
        if trailer.major_version != MAJOR_VERSION {
            return Err(format!(
                "store file format version {} is not supported (this build reads {MAJOR_VERSION})",
                trailer.major_version
            ));
        }
        if trailer.index_levels == 0 {
            return Err("trailer says the index has 0 levels".into());
        }
        Ok(trailer)
    }
}
