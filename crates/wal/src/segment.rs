//! WAL segment files: a header, then framed records. Layout in `docs/design/wal.md`.

use std::path::Path;

use basalt_common::Bytes;
use basalt_fs::{FileSystem, WritableFile};

use crate::error::{Result, WalError};
use crate::record::{WalEdit, decode_edit, encode_edit};

/// A segment's first four bytes.
pub const MAGIC: &[u8; 4] = b"BWAL";
/// The segment format this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Magic and version.
pub const HEADER_LEN: usize = 8;
/// Body length, body CRC32C, and the CRC32C of those eight bytes.
pub const RECORD_HEADER_LEN: usize = 12;

/// Appends `edit` as one framed record (header and body) to `out`.
pub fn encode_record(edit: &WalEdit, out: &mut Vec<u8>) -> Result<()> {
    frame_record(out, |body| encode_edit(edit, body))
}

/// Appends one framed record whose body `write_body` appends; on an error `out` is left as
/// it was.
pub(crate) fn frame_record(
    out: &mut Vec<u8>,
    write_body: impl FnOnce(&mut Vec<u8>) -> std::result::Result<(), String>,
) -> Result<()> {
    let start = out.len();
    out.extend_from_slice(&[0; RECORD_HEADER_LEN]);
    let framed = write_body(out)
        .map_err(WalError::Unloggable)
        .and_then(|()| {
            let body = &out[start + RECORD_HEADER_LEN..];
            u32::try_from(body.len())
                .map(|len| (len, crc32c::crc32c(body)))
                .map_err(|_| WalError::Unloggable(format!("an edit of {} bytes", body.len())))
        });
    let (len, body_crc) = match framed {
        Ok(framed) => framed,
        Err(e) => {
            out.truncate(start);
            return Err(e);
        }
    };
    let mut head = [0u8; 8];
    head[..4].copy_from_slice(&len.to_be_bytes());
    head[4..].copy_from_slice(&body_crc.to_be_bytes());
    out[start..start + 8].copy_from_slice(&head);
    out[start + 8..start + 12].copy_from_slice(&crc32c::crc32c(&head).to_be_bytes());
    Ok(())
}

/// Appends records to one new segment. Appended records survive the process being killed
/// once [`SegmentWriter::flush`] returns, and the machine losing power once
/// [`SegmentWriter::sync`] returns.
#[derive(Debug)]
pub struct SegmentWriter {
    file: Box<dyn WritableFile>,
    buf: Vec<u8>,
}

impl SegmentWriter {
    /// Creates the segment at `path` (which must not exist), writes its header, and syncs
    /// the file and its directory, so the segment itself survives a crash: only records
    /// appended later can be lost.
    pub fn create(fs: &dyn FileSystem, path: &Path) -> Result<Self> {
        Self::start(fs, path, fs.create(path)?)
    }

    /// As [`SegmentWriter::create`], for a segment expected to grow to about `capacity`
    /// bytes: the file is a log file ([`FileSystem::create_log`]), so on the local disk an
    /// append reaches the operating system without a system call and `flush` costs nothing.
    /// Until the writer is dropped (and after a crash) the file holds zeros after the last
    /// record, which readers take for a torn tail.
    pub fn create_log(fs: &dyn FileSystem, path: &Path, capacity: u64) -> Result<Self> {
        Self::start(fs, path, fs.create_log(path, capacity)?)
    }

    fn start(fs: &dyn FileSystem, path: &Path, mut file: Box<dyn WritableFile>) -> Result<Self> {
        let mut header = Vec::with_capacity(HEADER_LEN);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        file.append(&header)?;
        file.sync()?;
        if let Some(dir) = path.parent() {
            fs.sync_dir(dir)?;
        }
        Ok(SegmentWriter {
            file,
            buf: Vec::new(),
        })
    }

    /// Appends one edit; returns the offset its record starts at.
    pub fn append(&mut self, edit: &WalEdit) -> Result<u64> {
        let at = self.file.len();
        self.buf.clear();
        encode_record(edit, &mut self.buf)?;
        self.file.append(&self.buf)?;
        Ok(at)
    }

    /// Appends records already framed by [`encode_record`] (a group commit encodes outside
    /// the writer's lock); returns the offset the first starts at.
    pub fn append_encoded(&mut self, records: &[u8]) -> Result<u64> {
        let at = self.file.len();
        self.file.append(records)?;
        Ok(at)
    }

    /// Hands everything appended to the operating system.
    pub fn flush(&mut self) -> Result<()> {
        Ok(self.file.flush()?)
    }

    /// Makes everything appended durable.
    pub fn sync(&mut self) -> Result<()> {
        Ok(self.file.sync()?)
    }

    /// Bytes written so far, header included.
    pub fn len(&self) -> u64 {
        self.file.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// How a segment ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentEnd {
    /// After its last record.
    Clean,
    /// In a record that never fully reached the disk (a crash while it was appended): the
    /// segment's valid content ends at `offset`, and nothing valid follows.
    Torn { offset: u64, reason: String },
    /// In a damaged record that valid records follow: corruption, which no crash produces.
    /// Only [`salvage_segment`] reports it; [`read_segment`] fails instead.
    Corrupt { offset: u64, reason: String },
}

/// Everything a segment holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentContents {
    /// Each edit with the offset of its record.
    pub edits: Vec<(u64, WalEdit)>,
    pub end: SegmentEnd,
}

/// Reads the segment at `path`.
pub fn read_segment_file(fs: &dyn FileSystem, path: &Path) -> Result<SegmentContents> {
    let bytes = basalt_fs::read_all(fs, path)?;
    read_segment(&bytes, &path.display().to_string())
}

/// Reads a segment's bytes; `name` names it in errors. A damaged record is a torn tail when
/// no valid record follows it (a crash can only lose a suffix of what was appended), and
/// corruption otherwise: then the error names the segment and the damaged record's offset.
pub fn read_segment(bytes: &Bytes, name: &str) -> Result<SegmentContents> {
    let contents = salvage_segment(bytes, name)?;
    match contents.end {
        SegmentEnd::Corrupt { offset, reason } => Err(WalError::Corrupt {
            segment: name.to_owned(),
            offset,
            reason,
        }),
        _ => Ok(contents),
    }
}

/// Reads the segment at `path` as [`salvage_segment`] does.
pub fn salvage_segment_file(fs: &dyn FileSystem, path: &Path) -> Result<SegmentContents> {
    let bytes = basalt_fs::read_all(fs, path)?;
    salvage_segment(&bytes, &path.display().to_string())
}

/// As [`read_segment`], but damage in the middle ends the read with
/// [`SegmentEnd::Corrupt`] and the edits before it, instead of an error. Only a file that is
/// not a segment at all is an error.
pub fn salvage_segment(bytes: &Bytes, name: &str) -> Result<SegmentContents> {
    let corrupt = |offset: usize, reason: String| WalError::Corrupt {
        segment: name.to_owned(),
        offset: offset as u64,
        reason,
    };
    let header_len = bytes.len().min(HEADER_LEN);
    let mut expected = Vec::with_capacity(HEADER_LEN);
    expected.extend_from_slice(MAGIC);
    expected.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
    if bytes[..header_len] != expected[..header_len] {
        return Err(
            if bytes[..header_len.min(4)] == MAGIC[..header_len.min(4)] {
                corrupt(4, "unsupported format version".into())
            } else {
                corrupt(0, "not a WAL segment (bad magic)".into())
            },
        );
    }
    let mut edits = Vec::new();
    if bytes.len() < HEADER_LEN {
        return Ok(SegmentContents {
            edits,
            end: SegmentEnd::Torn {
                offset: 0,
                reason: "the header is incomplete".into(),
            },
        });
    }
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        match frame_at(bytes, at) {
            Ok(body) => match decode_edit(&body) {
                Ok(edit) => {
                    edits.push((at as u64, edit));
                    at += RECORD_HEADER_LEN + body.len();
                }
                Err(reason) => {
                    return Ok(SegmentContents {
                        edits,
                        end: SegmentEnd::Corrupt {
                            offset: at as u64,
                            reason,
                        },
                    });
                }
            },
            Err(reason) => {
                // A record's header is never all zeros (its checksum would not match), so
                // the search can stop at the last non-zero byte: a segment preallocated on
                // disk and cut short by a crash ends in megabytes of zeros.
                let last = bytes.iter().rposition(|&b| b != 0).unwrap_or(0);
                if let Some(next) = (at + 1..=last).find(|&o| frame_at(bytes, o).is_ok()) {
                    return Ok(SegmentContents {
                        edits,
                        end: SegmentEnd::Corrupt {
                            offset: at as u64,
                            reason: format!(
                                "{reason}, and a valid record follows at offset {next}"
                            ),
                        },
                    });
                }
                return Ok(SegmentContents {
                    edits,
                    end: SegmentEnd::Torn {
                        offset: at as u64,
                        reason,
                    },
                });
            }
        }
    }
    Ok(SegmentContents {
        edits,
        end: SegmentEnd::Clean,
    })
}

/// Edits read from a segment that may still be written (a replication source reads behind the
/// writers): each with its record's offset, and the offset to read from next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    pub edits: Vec<(u64, WalEdit)>,
    pub next: u64,
}

/// Reads the whole records of the segment at `path` from `offset` on, about `budget` bytes of
/// them (at least one record, however large). It stops, without error, where the records stop
/// checking out: the end of what the writers have written so far (a preallocated segment's
/// zeros, a record half copied). Offset 0 means the start: the header is checked and skipped.
/// A record whose checksums pass but whose body does not decode is corruption.
pub fn read_tail(fs: &dyn FileSystem, path: &Path, offset: u64, budget: usize) -> Result<Tail> {
    let file = fs.open(path)?;
    let len = file.len();
    let name = path.display().to_string();
    let mut at = offset;
    if at == 0 {
        if len < HEADER_LEN as u64 {
            return Ok(Tail {
                edits: Vec::new(),
                next: 0,
            });
        }
        let header = file.read_at(0, HEADER_LEN)?;
        let mut expected = MAGIC.to_vec();
        expected.extend_from_slice(&FORMAT_VERSION.to_be_bytes());
        if header[..] != expected[..] {
            // A header still being written: what is there is its start, then zeros.
            let written = header.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
            if header[..written] == expected[..written] {
                return Ok(Tail {
                    edits: Vec::new(),
                    next: 0,
                });
            }
            return Err(WalError::Corrupt {
                segment: name,
                offset: 0,
                reason: "not a WAL segment of this version".into(),
            });
        }
        at = HEADER_LEN as u64;
    }
    let mut edits = Vec::new();
    let mut read = 0usize;
    // Read in chunks; a record longer than what is left of a chunk is read whole.
    let mut chunk = Bytes::new();
    let mut chunk_at = at;
    while read < budget.max(1) && at < len {
        let within = (at - chunk_at) as usize;
        if chunk.len() < within + RECORD_HEADER_LEN {
            let want = ((len - at) as usize).min(budget.clamp(64 << 10, 8 << 20));
            chunk = file.read_at(at, want)?;
            chunk_at = at;
            continue;
        }
        let rest = &chunk[within..];
        let word = |i: usize| u32::from_be_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
        if crc32c::crc32c(&rest[..8]) != word(8) {
            break;
        }
        let body_len = word(0) as usize;
        let record = RECORD_HEADER_LEN + body_len;
        if (len - at) < record as u64 {
            break;
        }
        if chunk.len() < within + record {
            chunk = file.read_at(at, record.max(64 << 10).min((len - at) as usize))?;
            chunk_at = at;
            continue;
        }
        let body = chunk.slice(within + RECORD_HEADER_LEN..within + record);
        if crc32c::crc32c(&body) != word(4) {
            break;
        }
        let edit = decode_edit(&body).map_err(|reason| WalError::Corrupt {
            segment: name.clone(),
            offset: at,
            reason,
        })?;
        edits.push((at, edit));
        at += record as u64;
        read += record;
    }
    Ok(Tail { edits, next: at })
}

/// The body of the record framed at `at`, if its header and body check out.
fn frame_at(bytes: &Bytes, at: usize) -> std::result::Result<Bytes, String> {
    let rest = &bytes[at..];
    if rest.len() < RECORD_HEADER_LEN {
        return Err(format!("{} bytes, less than a record header", rest.len()));
    }
    let word = |i: usize| u32::from_be_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
    if crc32c::crc32c(&rest[..8]) != word(8) {
        return Err("record header checksum mismatch".into());
    }
    let len = word(0) as usize;
    if len > rest.len() - RECORD_HEADER_LEN {
        return Err(format!(
            "a record of {len} bytes runs past the end of the segment"
        ));
    }
    let body = bytes.slice(at + RECORD_HEADER_LEN..at + RECORD_HEADER_LEN + len);
    if crc32c::crc32c(&body) != word(4) {
        return Err("record checksum mismatch".into());
    }
    Ok(body)
}
