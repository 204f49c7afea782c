//! Helpers for the composite row keys HBase's schema guides describe (issue 34): fixed-width
//! big-endian numbers (HBase's `Bytes.toBytes`), reversed timestamps (`Long.MAX_VALUE - ts`,
//! newest first), the MD5 of a component, and delimiter-free concatenation of fixed-length
//! parts, each with its way back.
//!
//! ```
//! use basalt_common::keys::{KeyBuilder, split_fixed, to_long, timestamp_from_reversed};
//!
//! // The guides' log events: [md5(host)][reversed timestamp][event id].
//! let key = KeyBuilder::new()
//!     .md5(b"host7")
//!     .reversed_timestamp(1_700_000_000_000)
//!     .long(42)
//!     .build();
//! let parts = split_fixed(&key, &[16, 8, 8]).unwrap();
//! assert_eq!(timestamp_from_reversed(parts[1]).unwrap(), 1_700_000_000_000);
//! assert_eq!(to_long(parts[2]).unwrap(), 42);
//! ```

use crate::{Error, Result};

/// HBase's `Bytes.toBytes(long)`: eight bytes, big-endian, two's complement.
pub fn long(n: i64) -> [u8; 8] {
    n.to_be_bytes()
}

/// HBase's `Bytes.toBytes(int)`: four bytes, big-endian.
pub fn int(n: i32) -> [u8; 4] {
    n.to_be_bytes()
}

/// `Long.MAX_VALUE - ts` as eight big-endian bytes: later times sort first.
pub fn reversed_timestamp(ts: i64) -> [u8; 8] {
    (i64::MAX - ts).to_be_bytes()
}

/// The MD5 of a component (16 bytes): a fixed-length, evenly spread stand-in for it.
pub fn md5(component: &[u8]) -> [u8; 16] {
    crate::md5::md5(component)
}

/// `part` padded with zero bytes to `width`; longer than `width` is an error.
pub fn fixed(part: &[u8], width: usize) -> Result<Vec<u8>> {
    if part.len() > width {
        return Err(Error::InvalidArgument(format!(
            "a key part of {} bytes does not fit its fixed width of {width}",
            part.len()
        )));
    }
    let mut out = part.to_vec();
    out.resize(width, 0);
    Ok(out)
}

fn exactly<const N: usize>(what: &str, b: &[u8]) -> Result<[u8; N]> {
    b.try_into().map_err(|_| {
        Error::InvalidArgument(format!("{what} needs exactly {N} bytes, not {}", b.len()))
    })
}

/// The number [`long`] wrote.
pub fn to_long(b: &[u8]) -> Result<i64> {
    Ok(i64::from_be_bytes(exactly("a long", b)?))
}

/// The number [`int`] wrote.
pub fn to_int(b: &[u8]) -> Result<i32> {
    Ok(i32::from_be_bytes(exactly("an int", b)?))
}

/// The time [`reversed_timestamp`] wrote.
pub fn timestamp_from_reversed(b: &[u8]) -> Result<i64> {
    Ok(i64::MAX - i64::from_be_bytes(exactly("a reversed timestamp", b)?))
}

/// Cuts a key into parts of the given widths; a last width of 0 takes the rest.
pub fn split_fixed<'a>(key: &'a [u8], widths: &[usize]) -> Result<Vec<&'a [u8]>> {
    let mut out = Vec::with_capacity(widths.len());
    let mut at = 0;
    for (i, &w) in widths.iter().enumerate() {
        let end = if w == 0 && i + 1 == widths.len() {
            key.len()
        } else {
            at + w
        };
        let part = key.get(at..end).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "a key of {} bytes is shorter than its parts' widths {widths:?}",
                key.len()
            ))
        })?;
        out.push(part);
        at = end;
    }
    if at != key.len() {
        return Err(Error::InvalidArgument(format!(
            "a key of {} bytes is longer than its parts' widths {widths:?}",
            key.len()
        )));
    }
    Ok(out)
}

/// Builds a key from fixed-length parts, with no delimiters.
#[derive(Debug, Default, Clone)]
pub struct KeyBuilder {
    buf: Vec<u8>,
}

impl KeyBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn long(mut self, n: i64) -> Self {
        self.buf.extend_from_slice(&long(n));
        self
    }

    pub fn int(mut self, n: i32) -> Self {
        self.buf.extend_from_slice(&int(n));
        self
    }

    pub fn reversed_timestamp(mut self, ts: i64) -> Self {
        self.buf.extend_from_slice(&reversed_timestamp(ts));
        self
    }

    pub fn md5(mut self, component: &[u8]) -> Self {
        self.buf.extend_from_slice(&md5(component));
        self
    }

    /// `part` padded to `width` (an error if longer).
    pub fn fixed(mut self, part: &[u8], width: usize) -> Result<Self> {
        self.buf.extend_from_slice(&fixed(part, width)?);
        Ok(self)
    }

    /// Bytes as they are (a last, variable-length part).
    pub fn bytes(mut self, part: &[u8]) -> Self {
        self.buf.extend_from_slice(part);
        self
    }

    pub fn build(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_back() {
        assert_eq!(to_long(&long(-5)).expect("long"), -5);
        assert_eq!(to_int(&int(7)).expect("int"), 7);
        let (a, b) = (reversed_timestamp(1_000), reversed_timestamp(2_000));
        assert!(b < a, "later sorts first");
        assert_eq!(timestamp_from_reversed(&a).expect("ts"), 1_000);
        let key = KeyBuilder::new()
            .fixed(b"us", 4)
            .expect("fits")
            .long(9)
            .bytes(b"tail")
            .build();
        let parts = split_fixed(&key, &[4, 8, 0]).expect("split");
        assert_eq!(parts, [&b"us\0\0"[..], &long(9)[..], &b"tail"[..]]);
        assert!(fixed(b"toolong", 4).is_err());
        assert!(split_fixed(&key, &[4, 8]).is_err(), "bytes left over");
        assert!(split_fixed(&key, &[40]).is_err(), "too short");
        assert!(to_long(b"short").is_err());
        assert_eq!(md5(b"").len(), 16);
    }
}
