//! Basalt's write-ahead log (HBase's WAL): the format of its segment files, a writer that
//! appends records to one segment, and a reader that tells a torn final record (what a crash
//! leaves) from corruption in the middle of a segment.
//!
//! The format is specified byte by byte in `docs/design/wal.md`. This crate knows files and
//! records only; which regions write to a segment, group commit, rolling and replay belong to
//! the region server that owns the log.

mod error;
mod record;
mod segment;

pub use error::{Result, WalError};
pub use record::{WalEdit, decode_edit, encode_edit};
pub use segment::{
    FORMAT_VERSION, HEADER_LEN, MAGIC, RECORD_HEADER_LEN, SegmentContents, SegmentEnd,
    SegmentWriter, encode_record, read_segment, read_segment_file,
};
