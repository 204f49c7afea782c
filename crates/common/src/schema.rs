//! The enumerated values of descriptor attributes, with HBase's spellings.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

macro_rules! attribute_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// HBase's spelling.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = Error;

            /// Case-insensitive, as the HBase shell accepts.
            fn from_str(s: &str) -> Result<Self, Error> {
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.as_str().eq_ignore_ascii_case(s))
                    .ok_or_else(|| Error::InvalidArgument(format!(
                        "{} is not a valid {}; expected one of {}",
                        s,
                        stringify!($name),
                        $name::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
                    )))
            }
        }
    };
}

attribute_enum!(
    /// `KEEP_DELETED_CELLS`.
    KeepDeletedCells { False => "FALSE", True => "TRUE", Ttl => "TTL" }
);

attribute_enum!(
    /// `COMPRESSION` codecs (`Compression.Algorithm`).
    Compression {
        None => "NONE", Gz => "GZ", Snappy => "SNAPPY", Lz4 => "LZ4", Lzo => "LZO",
        Bzip2 => "BZIP2", Zstd => "ZSTD", Lzma => "LZMA", Brotli => "BROTLI",
    }
);

attribute_enum!(
    /// `BLOOMFILTER`.
    BloomType {
        None => "NONE", Row => "ROW", RowCol => "ROWCOL",
        RowPrefixFixedLength => "ROWPREFIX_FIXED_LENGTH",
    }
);

attribute_enum!(
    /// `DATA_BLOCK_ENCODING`.
    DataBlockEncoding {
        None => "NONE", Prefix => "PREFIX", Diff => "DIFF", FastDiff => "FAST_DIFF",
        RowIndexV1 => "ROW_INDEX_V1",
    }
);

attribute_enum!(
    /// `INDEX_BLOCK_ENCODING`.
    IndexBlockEncoding { None => "NONE", PrefixTree => "PREFIX_TREE" }
);

attribute_enum!(
    /// `IN_MEMORY_COMPACTION`.
    MemoryCompaction { None => "NONE", Basic => "BASIC", Eager => "EAGER", Adaptive => "ADAPTIVE" }
);

attribute_enum!(
    /// `DURABILITY`, per table and per mutation.
    Durability {
        UseDefault => "USE_DEFAULT", SkipWal => "SKIP_WAL", AsyncWal => "ASYNC_WAL",
        SyncWal => "SYNC_WAL", FsyncWal => "FSYNC_WAL",
    }
);

attribute_enum!(
    /// `MOB_COMPACT_PARTITION_POLICY`.
    MobCompactPartitionPolicy { Daily => "DAILY", Weekly => "WEEKLY", Monthly => "MONTHLY" }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_is_case_insensitive_and_errors_name_choices() {
        assert_eq!(
            "snappy".parse::<Compression>().unwrap(),
            Compression::Snappy
        );
        assert_eq!("ROWCOL".parse::<BloomType>().unwrap(), BloomType::RowCol);
        let err = "LZ5".parse::<Compression>().unwrap_err().to_string();
        assert!(err.contains("LZ5") && err.contains("ZSTD"), "{err}");
    }
}
