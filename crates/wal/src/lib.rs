//! Basalt's write-ahead log (HBase's WAL): the format of its segment files, a writer that
//! appends records to one segment, and a reader that tells a torn final record (what a crash
//! leaves) from corruption in the middle of a segment.
//!
//! The format is specified byte by byte in `docs/design/wal.md`. [`Wal`] is one server's log:
//! group commit, the durability levels, rolling and archiving. Replaying segments into regions
//! belongs to the region server that owns the log.

mod error;
mod log;
mod record;
mod segment;

pub use error::{Result, WalError};
pub use log::{Ticket, Wal, WalConfig, segments_in};
pub use record::{EditOrigin, WalEdit, decode_edit, encode_edit};
pub use segment::{
    FORMAT_VERSION, HEADER_LEN, MAGIC, RECORD_HEADER_LEN, SegmentContents, SegmentEnd,
    SegmentWriter, Tail, encode_record, read_segment, read_segment_file, read_tail,
    salvage_segment, salvage_segment_file,
};
