//! Printing byte strings the way HBase does (`Bytes.toStringBinary`): printable ASCII as is,
//! everything else as `\xHH`.

use std::fmt;

/// Appends `bytes` to `out` in HBase's `toStringBinary` form.
pub fn write_binary(out: &mut impl fmt::Write, bytes: &[u8]) -> fmt::Result {
    for &b in bytes {
        // HBase keeps alphanumerics and a fixed set of punctuation; the rest is escaped.
        let keep = b.is_ascii_alphanumeric() || b" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?".contains(&b);
        if keep {
            out.write_char(b as char)?;
        } else {
            write!(out, "\\x{b:02X}")?;
        }
    }
    Ok(())
}

/// `bytes` in HBase's `toStringBinary` form.
pub fn to_string_binary(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len());
    // Writing to a String cannot fail.
    let _ = write_binary(&mut s, bytes);
    s
}

/// Owned bytes shown in `toStringBinary` form; used inside error messages.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BinaryDisplay(pub Vec<u8>);

impl BinaryDisplay {
    pub fn new(bytes: &[u8]) -> Self {
        BinaryDisplay(bytes.to_vec())
    }
}

impl fmt::Display for BinaryDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_binary(f, &self.0)
    }
}

impl fmt::Debug for BinaryDisplay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_hbase() {
        assert_eq!(to_string_binary(b"row-1"), "row-1");
        assert_eq!(to_string_binary(b"\x00a\xff\n"), "\\x00a\\xFF\\x0A");
    }
}
