//! The block frame: magic, codec, lengths, payload, CRC32C (docs/design/storefile.md).

use std::io::{Read, Write};

use basalt_common::Compression;
use bytes::Bytes;

/// Frame bytes before the payload.
pub const HEADER_LEN: usize = 13;
/// Frame bytes after the payload.
pub const CRC_LEN: usize = 4;
/// Largest payload a reader accepts, so a corrupt length cannot ask for absurd allocations.
pub const MAX_PAYLOAD: usize = 256 * 1024 * 1024;

/// What a block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Data,
    LeafIndex,
    RootIndex,
    Bloom,
    /// The top of a chunked bloom filter: where its chunks are (format 1.2).
    BloomIndex,
    Info,
}

impl BlockKind {
    pub fn magic(self) -> &'static [u8; 4] {
        match self {
            BlockKind::Data => b"DATA",
            BlockKind::LeafIndex => b"IDXL",
            BlockKind::RootIndex => b"IDXR",
            BlockKind::Bloom => b"BLOM",
            BlockKind::BloomIndex => b"BLMI",
            BlockKind::Info => b"INFO",
        }
    }
}

/// A block payload's compression, with its code in the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    None = 0,
    Gz = 1,
    Snappy = 2,
    Lz4 = 3,
    Zstd = 4,
}

impl Codec {
    /// The codec for a family's COMPRESSION; `None` for algorithms Basalt does not implement.
    pub fn for_compression(c: Compression) -> Option<Codec> {
        Some(match c {
            Compression::None => Codec::None,
            Compression::Gz => Codec::Gz,
            Compression::Snappy => Codec::Snappy,
            Compression::Lz4 => Codec::Lz4,
            Compression::Zstd => Codec::Zstd,
            Compression::Lzo | Compression::Bzip2 | Compression::Lzma | Compression::Brotli => {
                return None;
            }
        })
    }

    fn from_code(code: u8) -> Option<Codec> {
        Some(match code {
            0 => Codec::None,
            1 => Codec::Gz,
            2 => Codec::Snappy,
            3 => Codec::Lz4,
            4 => Codec::Zstd,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Codec::None => "NONE",
            Codec::Gz => "GZ",
            Codec::Snappy => "SNAPPY",
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "ZSTD",
        }
    }

    fn compress(self, payload: &[u8]) -> std::io::Result<Vec<u8>> {
        Ok(match self {
            Codec::None => payload.to_vec(),
            Codec::Gz => {
                let mut enc =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                enc.write_all(payload)?;
                enc.finish()?
            }
            Codec::Snappy => snap::raw::Encoder::new()
                .compress_vec(payload)
                .map_err(std::io::Error::other)?,
            Codec::Lz4 => lz4_flex::block::compress(payload),
            Codec::Zstd => zstd::bulk::compress(payload, 3)?,
        })
    }

    fn decompress(self, stored: &[u8], len: usize) -> Result<Vec<u8>, String> {
        let out = match self {
            Codec::None => stored.to_vec(),
            Codec::Gz => {
                let mut out = Vec::with_capacity(len);
                flate2::read::GzDecoder::new(stored)
                    .take(len as u64 + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| format!("gzip payload: {e}"))?;
                out
            }
            Codec::Snappy => {
                let claimed = snap::raw::decompress_len(stored)
                    .map_err(|e| format!("snappy payload: {e}"))?;
                if claimed != len {
                    return Err(format!(
                        "snappy payload claims {claimed} bytes, the header {len}"
                    ));
                }
                snap::raw::Decoder::new()
                    .decompress_vec(stored)
                    .map_err(|e| format!("snappy payload: {e}"))?
            }
            Codec::Lz4 => {
                lz4_flex::block::decompress(stored, len).map_err(|e| format!("lz4 payload: {e}"))?
            }
            Codec::Zstd => {
                zstd::bulk::decompress(stored, len).map_err(|e| format!("zstd payload: {e}"))?
            }
        };
        if out.len() != len {
            return Err(format!(
                "payload decompresses to {} bytes, the header says {len}",
                out.len()
            ));
        }
        Ok(out)
    }
}

/// A whole framed block.
pub fn encode(kind: BlockKind, codec: Codec, payload: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut block = Vec::with_capacity(HEADER_LEN + payload.len() + CRC_LEN);
    block.resize(HEADER_LEN, 0);
    block.extend_from_slice(payload);
    frame(kind, codec, block)
}

/// Frames the payload that `block` holds after [`HEADER_LEN`] bytes of room for the header.
/// An uncompressed payload is framed where it lies: the header is written into the room and
/// the CRC appended, with no copy.
pub fn frame(kind: BlockKind, codec: Codec, mut block: Vec<u8>) -> std::io::Result<Vec<u8>> {
    debug_assert!(block.len() >= HEADER_LEN, "no room for the header");
    let payload_len = block.len() - HEADER_LEN;
    let too_big =
        || std::io::Error::other(format!("block payload of {payload_len} bytes is too large"));
    let raw_len = u32::try_from(payload_len).map_err(|_| too_big())?;
    if codec != Codec::None {
        let compressed = codec.compress(&block[HEADER_LEN..])?;
        block.truncate(HEADER_LEN);
        block.extend_from_slice(&compressed);
    }
    let stored_len = u32::try_from(block.len() - HEADER_LEN).map_err(|_| too_big())?;
    block[..4].copy_from_slice(kind.magic());
    block[4] = codec as u8;
    block[5..9].copy_from_slice(&raw_len.to_be_bytes());
    block[9..HEADER_LEN].copy_from_slice(&stored_len.to_be_bytes());
    let crc = crc32c::crc32c(&block);
    block.extend_from_slice(&crc.to_be_bytes());
    Ok(block)
}

/// The uncompressed payload of a framed block of the expected kind, or why it is corrupt. An
/// uncompressed payload is a slice of `block`, not a copy.
pub fn decode(kind: BlockKind, block: &Bytes) -> Result<Bytes, String> {
    if block.len() < HEADER_LEN + CRC_LEN {
        return Err(format!(
            "block of {} bytes is shorter than its frame",
            block.len()
        ));
    }
    if &block[..4] != kind.magic() {
        return Err(format!(
            "expected a {} block, found magic {:?}",
            String::from_utf8_lossy(kind.magic()),
            String::from_utf8_lossy(&block[..4])
        ));
    }
    let be32 =
        |at: usize| u32::from_be_bytes([block[at], block[at + 1], block[at + 2], block[at + 3]]);
    let raw_len = be32(5) as usize;
    let stored_len = be32(9) as usize;
    if HEADER_LEN + stored_len + CRC_LEN != block.len() {
        return Err(format!(
            "block frame says {stored_len} payload bytes, the block holds {}",
            block.len() - HEADER_LEN - CRC_LEN
        ));
    }
    let crc_at = HEADER_LEN + stored_len;
    let (expected, actual) = (be32(crc_at), crc32c::crc32c(&block[..crc_at]));
    if expected != actual {
        return Err(format!(
            "checksum mismatch: stored {expected:08x}, computed {actual:08x}"
        ));
    }
    if raw_len > MAX_PAYLOAD {
        return Err(format!(
            "payload of {raw_len} bytes exceeds the {MAX_PAYLOAD}-byte limit"
        ));
    }
    let codec = Codec::from_code(block[4]).ok_or_else(|| format!("unknown codec {}", block[4]))?;
    if codec == Codec::None {
        if raw_len != stored_len {
            return Err(format!(
                "payload decompresses to {stored_len} bytes, the header says {raw_len}"
            ));
        }
        return Ok(block.slice(HEADER_LEN..crc_at));
    }
    Ok(Bytes::from(
        codec.decompress(&block[HEADER_LEN..crc_at], raw_len)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_codec_round_trips() {
        let payload: Vec<u8> = (0..10_000u32)
            .flat_map(|i| (i % 97).to_be_bytes())
            .collect();
        for codec in [
            Codec::None,
            Codec::Gz,
            Codec::Snappy,
            Codec::Lz4,
            Codec::Zstd,
        ] {
            let block = Bytes::from(encode(BlockKind::Data, codec, &payload).unwrap());
            assert_eq!(
                &decode(BlockKind::Data, &block).unwrap()[..],
                &payload[..],
                "{codec:?}"
            );
            if codec != Codec::None {
                assert!(block.len() < payload.len() / 2, "{codec:?} compresses");
            }
        }
    }

    #[test]
    fn flipped_bits_wrong_kinds_and_truncation_are_caught() {
        let block = Bytes::from(
            encode(
                BlockKind::Data,
                Codec::Lz4,
                b"some cells, some cells, some cells",
            )
            .unwrap(),
        );
        for i in 0..block.len() {
            let mut bad = block.to_vec();
            bad[i] ^= 0x10;
            assert!(
                decode(BlockKind::Data, &bad.into()).is_err(),
                "flip at {i} went unnoticed"
            );
        }
        assert!(
            decode(BlockKind::Info, &block)
                .unwrap_err()
                .contains("expected a INFO block")
        );
        assert!(decode(BlockKind::Data, &block.slice(..block.len() - 1)).is_err());
        assert!(decode(BlockKind::Data, &block.slice(..3)).is_err());
    }
}
