//! Basalt's store files (its HFile): immutable, sorted files of one family's cells, with
//! checksummed and optionally compressed blocks, a multi-level block index, a bloom filter and
//! a fixed trailer. The format is specified byte by byte in `docs/design/storefile.md`.
//!
//! This crate writes and reads single files. It knows nothing of regions, memstores or
//! compaction policy; all I/O goes through `basalt-fs`.

mod block;
mod block_cache;
mod bloom;
mod data_block;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod index;
mod info;
mod key;
mod reader;
mod trailer;
mod varint;
mod writer;

pub use block::Codec;
pub use block_cache::{BlockCache, BlockCacheStats, memory_limit};
pub use bloom::{BloomFilter, BloomIndex};
pub use data_block::DataBlock;
pub use error::{Result, StoreFileError};
pub use info::FileInfo;
pub use reader::{BlockRef, CacheUse, FileBloom, StoreFileReader, StoreFileScanner};
pub use trailer::Trailer;
pub use writer::{StoreFilePart, StoreFileWriter, WriterOptions, temporary_path};

/// The format version this crate writes (the trailer's major and minor version).
pub const FORMAT_MAJOR: u16 = trailer::MAJOR_VERSION;
pub const FORMAT_MINOR: u16 = trailer::MINOR_VERSION;
