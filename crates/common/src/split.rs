//! HBase's `RegionSplitter` algorithms: the split keys of a table created with NUMREGIONS.

use crate::{Bytes, Error, Result};

/// How `NUMREGIONS` split keys are computed (HBase's `RegionSplitter` algorithms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitAlgorithm {
    /// Row keys are 8 lowercase hex digits, `00000000` to `ffffffff` (HBase's
    /// `HexStringSplit`).
    HexString,
    /// Row keys are arbitrary bytes, split evenly over 8 bytes (HBase's `UniformSplit`).
    Uniform,
}

impl SplitAlgorithm {
    /// Parses HBase's names (`HexStringSplit`, `UniformSplit`).
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "HexStringSplit" => Ok(SplitAlgorithm::HexString),
            "UniformSplit" => Ok(SplitAlgorithm::Uniform),
            other => Err(Error::InvalidArgument(format!(
                "unknown split algorithm {other:?}: HexStringSplit or UniformSplit"
            ))),
        }
    }

    /// The `regions - 1` split keys that cut the key space into `regions` equal parts.
    pub fn split_keys(self, regions: usize) -> Result<Vec<Bytes>> {
        if regions < 2 {
            return Err(Error::InvalidArgument(format!(
                "NUMREGIONS must be greater than 1, got {regions}"
            )));
        }
        let n = regions as u128;
        Ok(match self {
            SplitAlgorithm::HexString => {
                let size = (1u128 << 32) / n;
                (1..n)
                    .map(|i| Bytes::from(format!("{:08x}", i * size)))
                    .collect()
            }
            SplitAlgorithm::Uniform => {
                let step = u128::from(u64::MAX) / n;
                (1..n)
                    .map(|i| Bytes::copy_from_slice(&((i * step) as u64).to_be_bytes()))
                    .collect()
            }
        })
    }
}
