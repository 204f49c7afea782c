//! Comparators, compiled for evaluation, and the compare step of HBase's `CompareFilter`.

use std::cmp::Ordering;

use regex::bytes::{Regex, RegexBuilder};

use super::{BitOp, Comparator};
use crate::error::{Error, Result};
use crate::ops::CompareOperator;

/// A [`Comparator`] ready to compare cell bytes: regular expressions compiled, substrings
/// lowercased.
#[derive(Debug, Clone)]
pub(super) enum Compiled {
    Binary(Vec<u8>),
    BinaryPrefix(Vec<u8>),
    Regex(Regex),
    Substring(Vec<u8>),
    Bit(Vec<u8>, BitOp),
    Null,
    Long(i64),
    BinaryComponent(usize, Vec<u8>),
    BigDecimal(Decimal),
}

impl Compiled {
    pub(super) fn new(comparator: &Comparator) -> Result<Compiled> {
        Ok(match comparator {
            Comparator::Binary(v) => Compiled::Binary(v.to_vec()),
            Comparator::BinaryPrefix(v) => Compiled::BinaryPrefix(v.to_vec()),
            // Java's `find()` with DOTALL, over the value's bytes one character each (HBase
            // decodes values as ISO-8859-1), so `.` matches any byte.
            Comparator::RegexString(pattern) => Compiled::Regex(
                RegexBuilder::new(&unquote_java(pattern))
                    .dot_matches_new_line(true)
                    .unicode(false)
                    .build()
                    .map_err(|e| {
                        Error::InvalidArgument(format!(
                            "RegexStringComparator: invalid pattern {pattern:?}: {e}"
                        ))
                    })?,
            ),
            Comparator::Substring(s) => Compiled::Substring(s.to_lowercase().into_bytes()),
            Comparator::Bit { value, op } => Compiled::Bit(value.to_vec(), *op),
            Comparator::Null => Compiled::Null,
            Comparator::Long(v) => Compiled::Long(*v),
            Comparator::BinaryComponent { offset, value } => {
                Compiled::BinaryComponent(*offset as usize, value.to_vec())
            }
            Comparator::BigDecimal(v) => {
                Compiled::BigDecimal(Decimal::decode(v).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "BigDecimalComparator: {} bytes are not a BigDecimal (a 4-byte scale of at \
                     most {MAX_SCALE}, then the unscaled value)",
                        v.len()
                    ))
                })?)
            }
        })
    }

    /// HBase's `compareTo(cell)`: the comparator's value against the cell's bytes. Matching
    /// comparators (regex, substring, bit, null) give `Equal` on a match and `Greater`
    /// otherwise. `None` when the cell cannot be compared (a long comparator on a value that
    /// is not 8 bytes), which no operator passes.
    pub(super) fn compare(&self, cell: &[u8]) -> Option<Ordering> {
        let matched = |m: bool| {
            Some(if m {
                Ordering::Equal
            } else {
                Ordering::Greater
            })
        };
        match self {
            Compiled::Binary(v) => Some(v.as_slice().cmp(cell)),
            Compiled::BinaryPrefix(v) => Some(v.as_slice().cmp(&cell[..v.len().min(cell.len())])),
            Compiled::Regex(re) => matched(re.is_match(cell)),
            Compiled::Substring(s) => matched(contains(&cell.to_ascii_lowercase(), s)),
            Compiled::Bit(v, op) => matched(
                v.len() == cell.len()
                    && v.iter().zip(cell).any(|(a, b)| match op {
                        BitOp::And => a & b != 0,
                        BitOp::Or => a | b != 0,
                        BitOp::Xor => a ^ b != 0,
                    }),
            ),
            Compiled::Null => matched(cell.is_empty()),
            Compiled::Long(v) => {
                let cell = i64::from_be_bytes(cell.try_into().ok()?);
                Some(v.cmp(&cell))
            }
            Compiled::BinaryComponent(offset, v) => {
                let start = (*offset).min(cell.len());
                let end = (start + v.len()).min(cell.len());
                Some(v.as_slice().cmp(&cell[start..end]))
            }
            Compiled::BigDecimal(v) => Some(v.cmp(&Decimal::decode(cell)?)),
        }
    }
}

/// The largest scale a BigDecimal comparison accepts either way: enough for any decimal
/// an application stores, small enough that aligning two scales stays cheap.
const MAX_SCALE: i32 = 4096;

/// A BigDecimal as HBase's `Bytes.toBytes(BigDecimal)` writes it, held as sign, decimal
/// digits of the unscaled value (no leading zeros) and scale: value = digits x 10^-scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    scale: i32,
}

impl Decimal {
    /// A 4-byte big-endian scale, then the unscaled value's two's-complement big-endian
    /// bytes (Java's `BigInteger.toByteArray`, at least one byte).
    pub(super) fn decode(bytes: &[u8]) -> Option<Decimal> {
        let (scale, unscaled) = bytes.split_at_checked(4)?;
        let scale = i32::from_be_bytes(scale.try_into().ok()?);
        if unscaled.is_empty() || scale.unsigned_abs() > MAX_SCALE.unsigned_abs() {
            return None;
        }
        let negative = unscaled[0] & 0x80 != 0;
        // The magnitude: the two's complement negated when negative.
        let mut magnitude = unscaled.to_vec();
        if negative {
            for b in &mut magnitude {
                *b = !*b;
            }
            for b in magnitude.iter_mut().rev() {
                let (sum, carry) = b.overflowing_add(1);
                *b = sum;
                if !carry {
                    break;
                }
            }
        }
        // Decimal digits by repeated division by ten, least significant first.
        let mut digits = Vec::new();
        while magnitude.iter().any(|&b| b != 0) {
            let mut rest = 0u32;
            for b in &mut magnitude {
                let acc = (rest << 8) | u32::from(*b);
                *b = (acc / 10) as u8;
                rest = acc % 10;
            }
            digits.push(rest as u8);
        }
        digits.reverse();
        Some(Decimal {
            negative: negative && !digits.is_empty(),
            digits,
            scale,
        })
    }

    /// The unscaled digits at a larger scale (zeros appended).
    fn at_scale(&self, scale: i32) -> Vec<u8> {
        let mut digits = self.digits.clone();
        let pad = usize::try_from(scale - self.scale).unwrap_or(0);
        if !digits.is_empty() {
            digits.resize(digits.len() + pad, 0);
        }
        digits
    }
}

impl Ord for Decimal {
    /// Numeric order, as Java's `BigDecimal.compareTo` (2.0 equals 2.00).
    fn cmp(&self, other: &Self) -> Ordering {
        let sign = |d: &Decimal| match (d.digits.is_empty(), d.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        };
        match sign(self).cmp(&sign(other)) {
            Ordering::Equal => {}
            unequal => return unequal,
        }
        let scale = self.scale.max(other.scale);
        let (a, b) = (self.at_scale(scale), other.at_scale(scale));
        let magnitude = a.len().cmp(&b.len()).then_with(|| a.cmp(&b));
        if self.negative {
            magnitude.reverse()
        } else {
            magnitude
        }
    }
}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// Whether a cell passes `op` against a comparator: HBase's filters read the operator with
/// the cell on the left (`LESS` passes cells below the comparator's value), the reverse of
/// check-and-mutate. `NO_OP` passes nothing.
pub(super) fn passes(op: CompareOperator, comparator: &Compiled, cell: &[u8]) -> bool {
    comparator
        .compare(cell)
        .is_some_and(|ord| op.matches(ord.reverse()))
}

/// Java's literal quoting, `\Q...\E` (what `Pattern.quote` writes, and HBase's own
/// QuotaRetriever sends), as the escapes the regex crate reads; the rest of the pattern is
/// left as it is. A `\Q` with no `\E` quotes to the end, as in Java.
fn unquote_java(pattern: &str) -> std::borrow::Cow<'_, str> {
    if !pattern.contains("\\Q") {
        return std::borrow::Cow::Borrowed(pattern);
    }
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut rest = pattern;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match after.chars().next() {
            Some('Q') => {
                let quoted = &after[1..];
                let (literal, next) = match quoted.find("\\E") {
                    Some(end) => (&quoted[..end], &quoted[end + 2..]),
                    None => (quoted, ""),
                };
                out.push_str(&regex::escape(literal));
                rest = next;
            }
            // Any other escape (`\\` included) passes through whole.
            Some(c) => {
                out.push('\\');
                out.push(c);
                rest = &after[c.len_utf8()..];
            }
            None => {
                out.push('\\');
                rest = "";
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::*;

    fn c(comparator: Comparator) -> Compiled {
        Compiled::new(&comparator).unwrap()
    }

    #[test]
    fn operators_read_cell_op_value() {
        let b = c(Comparator::Binary(Bytes::from_static(b"m")));
        assert!(passes(CompareOperator::Less, &b, b"a"));
        assert!(!passes(CompareOperator::Less, &b, b"m"));
        assert!(passes(CompareOperator::LessOrEqual, &b, b"m"));
        assert!(passes(CompareOperator::Greater, &b, b"z"));
        assert!(passes(CompareOperator::GreaterOrEqual, &b, b"m"));
        assert!(passes(CompareOperator::Equal, &b, b"m"));
        assert!(passes(CompareOperator::NotEqual, &b, b"mm"));
        assert!(!passes(CompareOperator::NoOp, &b, b"m"));
    }

    #[test]
    fn java_literal_quoting_is_read_as_java_reads_it() {
        // What QuotaRetriever sends for a user filter: `^` + Pattern.quote("u.") + regex + `$`.
        let user = c(Comparator::RegexString(r"^\Qu.\Ebob.*$".into()));
        assert!(passes(CompareOperator::Equal, &user, b"u.bobby"));
        assert!(
            !passes(CompareOperator::Equal, &user, b"uxbobby"),
            "the quoted . is a dot"
        );
        // Quoted to the end without \E; an escaped backslash before Q is no quote.
        let open = c(Comparator::RegexString(r"a\Q(*".into()));
        assert!(passes(CompareOperator::Equal, &open, b"xa(*"));
        let escaped = c(Comparator::RegexString(r"\\Q+".into()));
        assert!(passes(CompareOperator::Equal, &escaped, b"\\QQQ"));
        assert_eq!(unquote_java("plain.*"), "plain.*");
    }

    #[test]
    fn comparators() {
        let prefix = c(Comparator::BinaryPrefix(Bytes::from_static(b"ab")));
        assert!(passes(CompareOperator::Equal, &prefix, b"abc"));
        assert!(!passes(CompareOperator::Equal, &prefix, b"a"));
        // Found anywhere, `.` crossing lines and matching any byte.
        let re = c(Comparator::RegexString("b.c".into()));
        assert!(passes(CompareOperator::Equal, &re, b"xxb\ncyy"));
        assert!(passes(CompareOperator::Equal, &re, b"b\xffc"));
        assert!(passes(CompareOperator::NotEqual, &re, b"bc"));
        let sub = c(Comparator::Substring("LoW".into()));
        assert!(passes(CompareOperator::Equal, &sub, b"yellOWish"));
        assert!(!passes(CompareOperator::Equal, &sub, b"lo w"));
        let bit = c(Comparator::Bit {
            value: Bytes::from_static(&[0b0001]),
            op: BitOp::And,
        });
        assert!(passes(CompareOperator::Equal, &bit, &[0b0011]));
        assert!(!passes(CompareOperator::Equal, &bit, &[0b0010]));
        assert!(!passes(CompareOperator::Equal, &bit, &[1, 1]));
        assert!(passes(CompareOperator::Equal, &c(Comparator::Null), b""));
        let long = c(Comparator::Long(10));
        assert!(passes(
            CompareOperator::Greater,
            &long,
            &11i64.to_be_bytes()
        ));
        assert!(passes(CompareOperator::Less, &long, &(-5i64).to_be_bytes()));
        assert!(!passes(CompareOperator::NotEqual, &long, b"short"));
        // BigDecimals as Java writes them: scale, then the unscaled two's complement.
        let decimal = |scale: i32, unscaled: &[u8]| {
            let mut v = scale.to_be_bytes().to_vec();
            v.extend_from_slice(unscaled);
            v
        };
        let two = c(Comparator::BigDecimal(Bytes::from(decimal(0, &[2]))));
        assert!(passes(CompareOperator::Equal, &two, &decimal(2, &[0, 200])));
        assert!(passes(CompareOperator::Less, &two, &decimal(1, &[19])));
        assert!(passes(
            CompareOperator::Greater,
            &two,
            &decimal(3, &[0x08, 0x34])
        ));
        assert!(passes(CompareOperator::Less, &two, &decimal(0, &[0xff])));
        assert!(passes(CompareOperator::Less, &two, &decimal(0, &[0])));
        assert!(passes(CompareOperator::Greater, &two, &decimal(-1, &[1])));
        let minus = c(Comparator::BigDecimal(Bytes::from(decimal(1, &[0xf1]))));
        assert!(passes(CompareOperator::Less, &minus, &decimal(0, &[0xfe])));
        assert!(passes(
            CompareOperator::Greater,
            &minus,
            &decimal(0, &[0xff])
        ));
        assert!(!passes(CompareOperator::Equal, &minus, b"abc"));
        assert!(Compiled::new(&Comparator::BigDecimal(Bytes::from_static(b"ab"))).is_err());
        let component = c(Comparator::BinaryComponent {
            offset: 2,
            value: Bytes::from_static(b"cd"),
        });
        assert!(passes(CompareOperator::Equal, &component, b"abcdef"));
        assert!(passes(CompareOperator::Greater, &component, b"abce"));
        assert!(
            Compiled::new(&Comparator::RegexString("(".into()))
                .unwrap_err()
                .to_string()
                .contains("invalid pattern")
        );
    }
}
