//! The few protocol buffer messages the catalog stores (`hbase:meta` values are "PBUF" and a
//! message, as HBase writes them): an encoder for varint and length-delimited fields and a
//! reader that walks a message's fields. Field numbers follow HBase's `.proto` files.

/// Prefix of protobuf values in `hbase:meta` and ZooKeeper (HBase's `ProtobufMagic`).
pub const PB_MAGIC: &[u8] = b"PBUF";

/// Builds one message.
#[derive(Debug, Default)]
pub struct PbWriter {
    buf: Vec<u8>,
}

fn put_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

impl PbWriter {
    pub fn new() -> Self {
        PbWriter::default()
    }

    /// A varint field (uint64, int64, int32, bool, enum).
    pub fn varint(&mut self, field: u32, v: u64) -> &mut Self {
        put_varint(&mut self.buf, u64::from(field) << 3);
        put_varint(&mut self.buf, v);
        self
    }

    /// A length-delimited field (bytes, string, embedded message).
    pub fn bytes(&mut self, field: u32, v: &[u8]) -> &mut Self {
        put_varint(&mut self.buf, (u64::from(field) << 3) | 2);
        put_varint(&mut self.buf, v.len() as u64);
        self.buf.extend_from_slice(v);
        self
    }

    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }
}

/// A field's value as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PbValue<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed64(u64),
    Fixed32(u32),
}

fn get_varint(buf: &[u8], pos: &mut usize) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *buf.get(*pos).ok_or("truncated varint")?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err("varint longer than 10 bytes".into())
}

/// Every field of a message, in order, as (field number, value).
pub fn fields(buf: &[u8]) -> Result<Vec<(u32, PbValue<'_>)>, String> {
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < buf.len() {
        let key = get_varint(buf, &mut pos)?;
        let field = u32::try_from(key >> 3).map_err(|_| "field number out of range")?;
        let take = |pos: &mut usize, n: usize| -> Result<&[u8], String> {
            let end = pos.checked_add(n).filter(|&e| e <= buf.len());
            let end = end.ok_or_else(|| format!("field {field} runs past the end"))?;
            let s = &buf[*pos..end];
            *pos = end;
            Ok(s)
        };
        let value = match key & 7 {
            0 => PbValue::Varint(get_varint(buf, &mut pos)?),
            1 => {
                let b = take(&mut pos, 8)?;
                PbValue::Fixed64(u64::from_le_bytes(b.try_into().map_err(|_| "fixed64")?))
            }
            2 => {
                let n = usize::try_from(get_varint(buf, &mut pos)?).map_err(|_| "length")?;
                PbValue::Bytes(take(&mut pos, n)?)
            }
            5 => {
                let b = take(&mut pos, 4)?;
                PbValue::Fixed32(u32::from_le_bytes(b.try_into().map_err(|_| "fixed32")?))
            }
            wire => return Err(format!("unsupported wire type {wire} in field {field}")),
        };
        out.push((field, value));
    }
    Ok(out)
}

/// `PBUF` + message, or an error if the prefix is missing.
pub fn strip_magic(value: &[u8]) -> Result<&[u8], String> {
    value
        .strip_prefix(PB_MAGIC)
        .ok_or_else(|| "value does not start with PBUF".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let msg = PbWriter::new()
            .varint(1, 300)
            .bytes(2, b"abc")
            .varint(5, 1)
            .finish();
        assert_eq!(msg[..3], [0x08, 0xac, 0x02]);
        assert_eq!(
            fields(&msg),
            Ok(vec![
                (1, PbValue::Varint(300)),
                (2, PbValue::Bytes(b"abc")),
                (5, PbValue::Varint(1))
            ])
        );
        assert!(fields(&msg[..msg.len() - 3]).is_err());
    }
}
