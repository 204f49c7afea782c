//! The key layout of the secondary index example (`coprocessors/examples/secondary-index`):
//! an index row per (value, base row), sorted by value, then by row. A value's bytes are
//! escaped (0x00 becomes 0x00 0xFF) and end with 0x00 0x01, so one value's rows are the rows
//! under [`value_prefix`] and no value is a prefix of another's. The client's reader
//! (`basalt_coprocessor::secondary_index`) uses the same functions.

/// The family and qualifier of the index row's one cell, which holds the base row.
pub const FAMILY: &[u8] = b"i";
pub const QUALIFIER: &[u8] = b"r";

/// The prefix every index row of `value` starts with.
pub fn value_prefix(value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 2);
    for &b in value {
        out.push(b);
        if b == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 1]);
    out
}

/// The index row of `row` holding `value`.
pub fn key(value: &[u8], row: &[u8]) -> Vec<u8> {
    let mut out = value_prefix(value);
    out.extend_from_slice(row);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_sort_and_never_prefix_each_other() {
        let rows = [
            key(b"a", b"r2"),
            key(b"a\x00", b"r1"),
            key(b"ab", b"r0"),
            key(b"b", b""),
        ];
        let mut sorted = rows.clone();
        sorted.sort();
        assert_eq!(sorted, rows);
        assert!(!key(b"a\x00", b"r1").starts_with(&value_prefix(b"a")));
        assert!(key(b"a", b"\x00\x01").starts_with(&value_prefix(b"a")));
    }
}
