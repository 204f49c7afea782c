//! Row-key layouts declared on a table (issue 34): the cures HBase's schema guides give for
//! hot spots, made part of the table so clients write and read logical keys and the layout
//! decides the stored (physical) key.
//!
//! A layout lives in the table's METADATA under [`METADATA_KEY`], as text:
//!
//! | text | physical key | pre-split |
//! |---|---|---|
//! | `SALT BUCKETS=N` (1..=256) | one byte, `MD5(key)[0..4]` as a big-endian u32 mod N, then the key | at bytes 1..N |
//! | `TIME_BUCKETS BUCKETS=N` (1..=256) | one byte, `timestamp mod N` of the key's first 8 bytes (a big-endian i64), then the key | at bytes 1..N |
//! | `HASH_PREFIX ALGORITHM=MD5 BYTES=B` (1..=16) | `MD5(key)[0..B]`, then the key | 16 regions on the first byte |
//! | `REVERSE` | the key's bytes in reverse order | none |
//!
//! Salting and time buckets keep each bucket in key order, so a scan over a logical range is
//! one scan per bucket, merged. A hash prefix or a reversal spreads keys with no order left
//! among them: point operations are exact, and a range scan reads every region and sorts
//! (bounded; see the client). Format and rules: `docs/design/key-layouts.md`.

use crate::{Bytes, Error, Result};

/// The METADATA entry that holds a table's layout.
pub const METADATA_KEY: &str = "KEY_LAYOUT";

/// How a table stores its logical row keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyLayout {
    /// A bucket byte from a hash of the whole key.
    Salt { buckets: u16 },
    /// A bucket byte from the key's leading timestamp (`timestamp mod buckets`).
    TimeBuckets { buckets: u16 },
    /// The first `bytes` bytes of the key's MD5.
    HashPrefix { bytes: u8 },
    /// The key's bytes reversed.
    Reverse,
}

fn bad(text: &str, why: &str) -> Error {
    Error::InvalidArgument(format!("bad {METADATA_KEY} {text:?}: {why}"))
}

/// `NAME=VALUE` options of a layout's text.
fn option<'a>(words: &[&'a str], name: &str) -> Option<&'a str> {
    words
        .iter()
        .filter_map(|w| w.split_once('='))
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v)
}

impl KeyLayout {
    /// Parses the METADATA text (`SALT BUCKETS=16`, ...).
    pub fn parse(text: &str) -> Result<KeyLayout> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let Some(kind) = words.first() else {
            return Err(bad(text, "empty"));
        };
        for w in &words[1..] {
            let known = ["BUCKETS", "BYTES", "ALGORITHM"];
            if !w
                .split_once('=')
                .is_some_and(|(k, _)| known.iter().any(|n| k.eq_ignore_ascii_case(n)))
            {
                return Err(bad(text, &format!("unknown option {w:?}")));
            }
        }
        let buckets = || -> Result<u16> {
            let v = option(&words, "BUCKETS").ok_or_else(|| bad(text, "BUCKETS=N is required"))?;
            v.parse()
                .ok()
                .filter(|n| (1..=256).contains(n))
                .ok_or_else(|| bad(text, "BUCKETS must be 1 to 256"))
        };
        match kind.to_ascii_uppercase().as_str() {
            "SALT" => Ok(KeyLayout::Salt {
                buckets: buckets()?,
            }),
            "TIME_BUCKETS" => Ok(KeyLayout::TimeBuckets {
                buckets: buckets()?,
            }),
            "HASH_PREFIX" => {
                if let Some(a) = option(&words, "ALGORITHM")
                    && !a.eq_ignore_ascii_case("MD5")
                {
                    return Err(bad(text, "the only ALGORITHM is MD5"));
                }
                let bytes = option(&words, "BYTES")
                    .unwrap_or("4")
                    .parse()
                    .ok()
                    .filter(|n| (1..=16).contains(n))
                    .ok_or_else(|| bad(text, "BYTES must be 1 to 16"))?;
                Ok(KeyLayout::HashPrefix { bytes })
            }
            "REVERSE" if words.len() == 1 => Ok(KeyLayout::Reverse),
            "REVERSE" => Err(bad(text, "REVERSE takes no options")),
            other => Err(bad(
                text,
                &format!("unknown layout {other} (SALT, TIME_BUCKETS, HASH_PREFIX, REVERSE)"),
            )),
        }
    }

    /// The table's layout, if its METADATA declares one.
    pub fn of(metadata: &std::collections::BTreeMap<String, String>) -> Result<Option<Self>> {
        metadata
            .get(METADATA_KEY)
            .map(|t| KeyLayout::parse(t))
            .transpose()
    }

    /// The METADATA text, as [`KeyLayout::parse`] reads it.
    pub fn text(&self) -> String {
        match self {
            KeyLayout::Salt { buckets } => format!("SALT BUCKETS={buckets}"),
            KeyLayout::TimeBuckets { buckets } => format!("TIME_BUCKETS BUCKETS={buckets}"),
            KeyLayout::HashPrefix { bytes } => format!("HASH_PREFIX ALGORITHM=MD5 BYTES={bytes}"),
            KeyLayout::Reverse => "REVERSE".into(),
        }
    }

    /// How many ordered buckets a range scan merges (salting and time buckets), if any.
    pub fn buckets(&self) -> Option<u16> {
        match self {
            KeyLayout::Salt { buckets } | KeyLayout::TimeBuckets { buckets } => Some(*buckets),
            KeyLayout::HashPrefix { .. } | KeyLayout::Reverse => None,
        }
    }

    /// The bucket of a logical key (salting and time buckets).
    pub fn bucket_of(&self, key: &[u8]) -> Result<u8> {
        match self {
            KeyLayout::Salt { buckets } => {
                let h = crate::md5::md5(key);
                let n = u32::from_be_bytes([h[0], h[1], h[2], h[3]]);
                Ok((n % u32::from(*buckets)) as u8)
            }
            KeyLayout::TimeBuckets { buckets } => {
                let ts: [u8; 8] =
                    key.get(..8)
                        .and_then(|b| b.try_into().ok())
                        .ok_or_else(|| {
                            Error::InvalidArgument(format!(
                                "a TIME_BUCKETS table's row keys start with an 8-byte big-endian \
                         timestamp; this one has {} bytes",
                                key.len()
                            ))
                        })?;
                let ts = i64::from_be_bytes(ts);
                Ok(ts.rem_euclid(i64::from(*buckets)) as u8)
            }
            KeyLayout::HashPrefix { .. } | KeyLayout::Reverse => Err(Error::InvalidArgument(
                format!("a {} table has no buckets", self.text()),
            )),
        }
    }

    /// The stored key of a logical key.
    pub fn physical(&self, key: &[u8]) -> Result<Bytes> {
        Ok(match self {
            KeyLayout::Salt { .. } | KeyLayout::TimeBuckets { .. } => {
                let mut out = Vec::with_capacity(key.len() + 1);
                out.push(self.bucket_of(key)?);
                out.extend_from_slice(key);
                Bytes::from(out)
            }
            KeyLayout::HashPrefix { bytes } => {
                let h = crate::md5::md5(key);
                let mut out = Vec::with_capacity(key.len() + usize::from(*bytes));
                out.extend_from_slice(&h[..usize::from(*bytes)]);
                out.extend_from_slice(key);
                Bytes::from(out)
            }
            KeyLayout::Reverse => Bytes::from(key.iter().rev().copied().collect::<Vec<u8>>()),
        })
    }

    /// The logical key of a stored one.
    pub fn logical(&self, physical: &[u8]) -> Result<Bytes> {
        let strip = |n: usize| {
            physical
                .get(n..)
                .map(Bytes::copy_from_slice)
                .ok_or_else(|| {
                    Error::corrupt(format!(
                        "a stored row key of {} bytes is shorter than its {} prefix",
                        physical.len(),
                        self.text()
                    ))
                })
        };
        match self {
            KeyLayout::Salt { .. } | KeyLayout::TimeBuckets { .. } => strip(1),
            KeyLayout::HashPrefix { bytes } => strip(usize::from(*bytes)),
            KeyLayout::Reverse => Ok(Bytes::from(
                physical.iter().rev().copied().collect::<Vec<u8>>(),
            )),
        }
    }

    /// The split keys a new table with this layout gets: one region per bucket, or 16 on a
    /// hash prefix's first byte.
    pub fn split_keys(&self) -> Vec<Bytes> {
        match self {
            KeyLayout::Salt { buckets } | KeyLayout::TimeBuckets { buckets } => {
                (1..*buckets).map(|b| Bytes::from(vec![b as u8])).collect()
            }
            KeyLayout::HashPrefix { .. } => (1..16u8).map(|i| Bytes::from(vec![i << 4])).collect(),
            KeyLayout::Reverse => Vec::new(),
        }
    }

    /// The stored range of bucket `bucket` for the logical range `[start, stop)` (an empty
    /// stop: no end): the bucket byte before each bound, the bucket's end for no end.
    pub fn bucket_range(&self, bucket: u8, start: &[u8], stop: &[u8]) -> (Bytes, Bytes) {
        let with = |k: &[u8]| {
            let mut v = Vec::with_capacity(k.len() + 1);
            v.push(bucket);
            v.extend_from_slice(k);
            Bytes::from(v)
        };
        let end = if stop.is_empty() {
            if bucket == u8::MAX {
                Bytes::new()
            } else {
                Bytes::from(vec![bucket + 1])
            }
        } else {
            with(stop)
        };
        (with(start), end)
    }
}

impl std::fmt::Display for KeyLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_parse_and_print_back() {
        for text in [
            "SALT BUCKETS=16",
            "TIME_BUCKETS BUCKETS=8",
            "HASH_PREFIX ALGORITHM=MD5 BYTES=4",
            "REVERSE",
        ] {
            assert_eq!(KeyLayout::parse(text).expect(text).text(), text);
        }
        assert_eq!(
            KeyLayout::parse("salt buckets=4").expect("any case"),
            KeyLayout::Salt { buckets: 4 }
        );
        for bad in [
            "",
            "SALT",
            "SALT BUCKETS=0",
            "SALT BUCKETS=300",
            "SALT BUCKETS=4 COLOR=red",
            "HASH_PREFIX ALGORITHM=SHA1",
            "HASH_PREFIX BYTES=17",
            "REVERSE BUCKETS=2",
            "ZIGZAG",
        ] {
            let e = KeyLayout::parse(bad).expect_err(bad);
            assert!(e.to_string().contains(METADATA_KEY), "{e}");
        }
    }

    #[test]
    fn physical_keys_come_back_logical() {
        let ts = 1_700_000_000_123i64.to_be_bytes();
        let mut timed = ts.to_vec();
        timed.extend_from_slice(b"host1");
        for layout in [
            KeyLayout::Salt { buckets: 16 },
            KeyLayout::TimeBuckets { buckets: 8 },
            KeyLayout::HashPrefix { bytes: 4 },
            KeyLayout::Reverse,
        ] {
            let p = layout.physical(&timed).expect("physical");
            assert_ne!(p, Bytes::from(timed.clone()));
            assert_eq!(
                layout.logical(&p).expect("logical"),
                Bytes::from(timed.clone())
            );
        }
        let t = KeyLayout::TimeBuckets { buckets: 8 };
        assert_eq!(
            t.bucket_of(&timed).expect("bucket"),
            (1_700_000_000_123i64 % 8) as u8
        );
        assert!(t.physical(b"short").is_err(), "needs a timestamp");
        // Salted buckets spread sequential keys over every bucket.
        let salt = KeyLayout::Salt { buckets: 16 };
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..1000u32 {
            seen.insert(salt.bucket_of(&i.to_be_bytes()).expect("bucket"));
        }
        assert_eq!(seen.len(), 16);
        assert_eq!(salt.split_keys().len(), 15);
        let (a, b) = salt.bucket_range(3, b"k1", b"");
        assert_eq!((&a[..], &b[..]), (&b"\x03k1"[..], &b"\x04"[..]));
    }
}
