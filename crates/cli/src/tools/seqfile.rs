//! Hadoop's SequenceFile (version 6, uncompressed), as HBase's Export writes and Import reads
//! it: keys are `ImmutableBytesWritable` (a 4-byte big-endian length, then the row), values
//! are `Result`s in HBase's `ResultSerialization` (a varint-delimited `ClientProtos.Result`).
//! Layout: `docs/design/bulk.md`.

use std::io::{self, Read, Write};

use basalt_common::{Bytes, Cell};
use basalt_proto::pb;
use prost::Message;

const MAGIC: &[u8; 3] = b"SEQ";
const VERSION: u8 = 6;
pub const KEY_CLASS: &str = "org.apache.hadoop.hbase.io.ImmutableBytesWritable";
pub const VALUE_CLASS: &str = "org.apache.hadoop.hbase.client.Result";
/// A sync marker goes between records at least this often (Hadoop's `SYNC_INTERVAL`).
const SYNC_INTERVAL: u64 = 100 * 1024;
/// What precedes a sync marker where a record length would be.
const SYNC_ESCAPE: i32 = -1;

/// Hadoop's `WritableUtils.writeVLong`: one byte for -112..=127, else a length byte and the
/// value's big-endian bytes (ones' complement for negatives).
fn write_vlong(out: &mut Vec<u8>, value: i64) {
    if (-112..=127).contains(&value) {
        out.push(value as u8);
        return;
    }
    let (mut len, v) = if value < 0 {
        (-120i32, !value)
    } else {
        (-112i32, value)
    };
    let mut tmp = v;
    while tmp != 0 {
        tmp >>= 8;
        len -= 1;
    }
    out.push(len as u8);
    let bytes = if len < -120 {
        -(len + 120)
    } else {
        -(len + 112)
    };
    for i in (0..bytes).rev() {
        out.push((v >> (i * 8)) as u8);
    }
}

fn read_vlong(r: &mut impl Read) -> io::Result<i64> {
    let first = read_u8(r)? as i8;
    if first >= -112 {
        return Ok(i64::from(first));
    }
    let negative = first < -120;
    let size = if negative {
        -119 - i32::from(first)
    } else {
        -111 - i32::from(first)
    };
    let mut v: i64 = 0;
    for _ in 0..size - 1 {
        v = (v << 8) | i64::from(read_u8(r)?);
    }
    Ok(if negative { !v } else { v })
}

fn read_u8(r: &mut impl Read) -> io::Result<u8> {
    let mut b = [0u8; 1];
    r.read_exact(&mut b)?;
    Ok(b[0])
}

fn read_i32(r: &mut impl Read) -> io::Result<i32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(i32::from_be_bytes(b))
}

/// Hadoop's `Text` (a vlong length, then UTF-8).
fn write_text(out: &mut Vec<u8>, s: &str) {
    write_vlong(out, s.len() as i64);
    out.extend_from_slice(s.as_bytes());
}

fn read_text(r: &mut impl Read) -> io::Result<String> {
    let len = read_vlong(r)?;
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= 1 << 20)
        .ok_or_else(|| bad(format!("a text of length {len}")))?;
    let mut b = vec![0u8; len];
    r.read_exact(&mut b)?;
    String::from_utf8(b).map_err(|_| bad("a text that is not UTF-8".into()))
}

fn bad(what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not an HBase export file: {what}"),
    )
}

/// The cells of one row as HBase's `ResultSerialization` writes a `Result`.
fn result_bytes(cells: &[Cell]) -> Vec<u8> {
    basalt_proto::ops::result_pb(cells, false).encode_length_delimited_to_vec()
}

/// Writes an export file: a header, then one record per row.
pub struct Writer<W: Write> {
    out: W,
    sync: [u8; 16],
    written: u64,
    last_sync: u64,
}

impl<W: Write> Writer<W> {
    /// Writes the header; `sync` is the file's 16-byte sync marker (any bytes, unlikely in data).
    pub fn new(mut out: W, sync: [u8; 16]) -> io::Result<Self> {
        let mut header = Vec::new();
        header.extend_from_slice(MAGIC);
        header.push(VERSION);
        write_text(&mut header, KEY_CLASS);
        write_text(&mut header, VALUE_CLASS);
        header.push(0); // not compressed
        header.push(0); // not block-compressed
        header.extend_from_slice(&0i32.to_be_bytes()); // no metadata
        header.extend_from_slice(&sync);
        out.write_all(&header)?;
        let written = header.len() as u64;
        Ok(Writer {
            out,
            sync,
            written,
            last_sync: written,
        })
    }

    /// Appends one row's cells (all of one row).
    pub fn append(&mut self, row: &[u8], cells: &[Cell]) -> io::Result<()> {
        if self.written - self.last_sync >= SYNC_INTERVAL {
            self.out.write_all(&SYNC_ESCAPE.to_be_bytes())?;
            self.out.write_all(&self.sync)?;
            self.written += 20;
            self.last_sync = self.written;
        }
        let value = result_bytes(cells);
        let key_len = 4 + row.len();
        let too_big = || io::Error::new(io::ErrorKind::InvalidInput, "a row over 2 GiB");
        let record_len = i32::try_from(key_len + value.len()).map_err(|_| too_big())?;
        let row_len = i32::try_from(row.len()).map_err(|_| too_big())?;
        self.out.write_all(&record_len.to_be_bytes())?;
        self.out.write_all(&(key_len as i32).to_be_bytes())?;
        self.out.write_all(&row_len.to_be_bytes())?;
        self.out.write_all(row)?;
        self.out.write_all(&value)?;
        self.written += 8 + key_len as u64 + value.len() as u64;
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads an export file's rows.
pub struct Reader<R: Read> {
    input: R,
    sync: [u8; 16],
}

impl<R: Read> Reader<R> {
    /// Reads and checks the header.
    pub fn new(mut input: R) -> io::Result<Self> {
        let mut magic = [0u8; 4];
        input.read_exact(&mut magic)?;
        if &magic[..3] != MAGIC {
            return Err(bad("no SEQ magic".into()));
        }
        if magic[3] != VERSION {
            return Err(bad(format!("SequenceFile version {}", magic[3])));
        }
        let key = read_text(&mut input)?;
        let value = read_text(&mut input)?;
        if key != KEY_CLASS || value != VALUE_CLASS {
            return Err(bad(format!("keys {key} and values {value}")));
        }
        if read_u8(&mut input)? != 0 || read_u8(&mut input)? != 0 {
            return Err(bad("compressed records (export without compression)".into()));
        }
        let entries = read_i32(&mut input)?;
        for _ in 0..entries.max(0) {
            read_text(&mut input)?;
            read_text(&mut input)?;
        }
        let mut sync = [0u8; 16];
        input.read_exact(&mut sync)?;
        Ok(Reader { input, sync })
    }

    /// The next row and its cells, or None at the end.
    pub fn next_row(&mut self) -> io::Result<Option<(Bytes, Vec<Cell>)>> {
        let mut len = [0u8; 4];
        loop {
            match self.input.read(&mut len[..1])? {
                0 => return Ok(None),
                _ => self.input.read_exact(&mut len[1..])?,
            }
            if i32::from_be_bytes(len) != SYNC_ESCAPE {
                break;
            }
            let mut sync = [0u8; 16];
            self.input.read_exact(&mut sync)?;
            if sync != self.sync {
                return Err(bad("a sync marker that is not the file's".into()));
            }
        }
        let record_len = i32::from_be_bytes(len);
        let key_len = read_i32(&mut self.input)?;
        if key_len < 4 || record_len < key_len || record_len > 1 << 30 {
            return Err(bad(format!(
                "a record of {record_len} bytes with a key of {key_len}"
            )));
        }
        let mut key = vec![0u8; key_len as usize];
        self.input.read_exact(&mut key)?;
        let mut value = vec![0u8; (record_len - key_len) as usize];
        self.input.read_exact(&mut value)?;
        let row = Bytes::copy_from_slice(&key[4..]);
        let result = pb::Result::decode_length_delimited(&value[..])
            .map_err(|e| bad(format!("a Result that does not decode: {e}")))?;
        Ok(Some((row, basalt_proto::ops::row_result(result).cells)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vlongs_read_back_as_hadoop_writes_them() {
        for v in [
            0i64,
            1,
            -1,
            127,
            -112,
            128,
            -113,
            255,
            65_536,
            -65_537,
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            assert_eq!(read_vlong(&mut &out[..]).expect("read"), v, "{v}");
        }
        // Hadoop's bytes for 300: length byte -114 (two bytes follow), then 0x01 0x2c.
        let mut out = Vec::new();
        write_vlong(&mut out, 300);
        assert_eq!(out, [0x8e, 0x01, 0x2c]);
    }

    #[test]
    fn rows_read_back_across_sync_markers() {
        let mut w = Writer::new(Vec::new(), [7; 16]).expect("header");
        let rows: Vec<(Bytes, Vec<Cell>)> = (0..5_000)
            .map(|i| {
                let row = Bytes::from(format!("row{i:05}"));
                let cells = vec![
                    Cell::put(&row, b"f", b"a", i, &[b'x'; 40]),
                    Cell::new(
                        &row,
                        b"f",
                        b"b",
                        i,
                        basalt_common::CellType::DeleteColumn,
                        b"",
                    ),
                ];
                (row, cells)
            })
            .collect();
        for (row, cells) in &rows {
            w.append(row, cells).expect("append");
        }
        let bytes = w.finish().expect("finish");
        assert!(
            bytes
                .windows(20)
                .any(|w| w[..4] == [0xff; 4] && w[4..] == [7; 16])
        );
        let mut r = Reader::new(&bytes[..]).expect("header");
        for (row, cells) in &rows {
            assert_eq!(
                r.next_row().expect("row"),
                Some((row.clone(), cells.clone()))
            );
        }
        assert_eq!(r.next_row().expect("end"), None);
        assert!(Reader::new(&b"PAR1xxxx"[..]).is_err());
    }
}
