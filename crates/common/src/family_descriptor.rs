//! `ColumnFamilyDescriptor`: a family's name and every attribute HBase gives it.

use std::collections::BTreeMap;
use std::fmt;

use bytes::Bytes;

use crate::bytes_display::{BinaryDisplay, to_string_binary};
use crate::error::{Error, Result};
use crate::schema::{
    BloomType, Compression, DataBlockEncoding, IndexBlockEncoding, KeepDeletedCells,
    MemoryCompaction, MobCompactPartitionPolicy,
};

/// The CONFIGURATION key giving the prefix length of a ROWPREFIX_FIXED_LENGTH bloom filter.
pub const ROW_PREFIX_BLOOM_LENGTH_KEY: &str = "RowPrefixBloomFilter.prefix_length";

/// `HConstants.FOREVER`: a TTL of this many seconds means "never expires".
pub const TTL_FOREVER: u32 = i32::MAX as u32;

/// Basalt's default VERSIONS: 3, as the seed documents and HBase's Thrift1 use (HBase 2.x says 1).
pub const DEFAULT_MAX_VERSIONS: u32 = 3;

/// Longest legal family name.
pub const MAX_FAMILY_NAME_LENGTH: usize = 127;

/// A column family's schema. Fields are public; [`ColumnFamilyDescriptor::validate`] checks them,
/// and table creation calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamilyDescriptor {
    pub name: Bytes,
    pub max_versions: u32,
    pub min_versions: u32,
    /// Seconds; [`TTL_FOREVER`] means no expiry.
    pub ttl_seconds: u32,
    pub keep_deleted_cells: KeepDeletedCells,
    pub block_size: u32,
    pub block_cache: bool,
    pub in_memory: bool,
    pub compression: Compression,
    pub compression_compact: Option<Compression>,
    pub compression_compact_major: Option<Compression>,
    pub compression_compact_minor: Option<Compression>,
    pub data_block_encoding: DataBlockEncoding,
    pub index_block_encoding: IndexBlockEncoding,
    pub bloom_filter: BloomType,
    pub replication_scope: u32,
    pub cache_data_on_write: bool,
    pub cache_index_on_write: bool,
    pub cache_blooms_on_write: bool,
    pub evict_blocks_on_close: bool,
    pub prefetch_blocks_on_open: bool,
    pub compress_tags: bool,
    pub new_version_behavior: bool,
    pub in_memory_compaction: Option<MemoryCompaction>,
    pub is_mob: bool,
    pub mob_threshold: u64,
    pub mob_compact_partition_policy: MobCompactPartitionPolicy,
    pub dfs_replication: u16,
    pub storage_policy: Option<String>,
    pub encryption: Option<String>,
    /// `ENCRYPTION_KEY`: the wrapped data key, as HBase stores it; kept, not yet used.
    pub encryption_key: Option<Vec<u8>>,
    /// `METADATA {k => v}`: free-form key/values.
    pub metadata: BTreeMap<String, String>,
    /// `CONFIGURATION {k => v}`: per-family configuration overrides.
    pub configuration: BTreeMap<String, String>,
}

impl ColumnFamilyDescriptor {
    /// A family with every attribute at Basalt's default.
    pub fn new(name: impl Into<Bytes>) -> Self {
        ColumnFamilyDescriptor {
            name: name.into(),
            max_versions: DEFAULT_MAX_VERSIONS,
            min_versions: 0,
            ttl_seconds: TTL_FOREVER,
            keep_deleted_cells: KeepDeletedCells::False,
            block_size: 64 * 1024,
            block_cache: true,
            in_memory: false,
            compression: Compression::None,
            compression_compact: None,
            compression_compact_major: None,
            compression_compact_minor: None,
            data_block_encoding: DataBlockEncoding::None,
            index_block_encoding: IndexBlockEncoding::None,
            bloom_filter: BloomType::Row,
            replication_scope: 0,
            cache_data_on_write: false,
            cache_index_on_write: false,
            cache_blooms_on_write: false,
            evict_blocks_on_close: false,
            prefetch_blocks_on_open: false,
            compress_tags: true,
            new_version_behavior: false,
            in_memory_compaction: None,
            is_mob: false,
            mob_threshold: 102_400,
            mob_compact_partition_policy: MobCompactPartitionPolicy::Daily,
            dfs_replication: 0,
            storage_policy: None,
            encryption: None,
            encryption_key: None,
            metadata: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }

    pub fn with_max_versions(mut self, v: u32) -> Self {
        self.max_versions = v;
        self
    }

    pub fn with_min_versions(mut self, v: u32) -> Self {
        self.min_versions = v;
        self
    }

    pub fn with_ttl_seconds(mut self, ttl: u32) -> Self {
        self.ttl_seconds = ttl;
        self
    }

    pub fn with_keep_deleted_cells(mut self, kdc: KeepDeletedCells) -> Self {
        self.keep_deleted_cells = kdc;
        self
    }

    pub fn with_block_size(mut self, size: u32) -> Self {
        self.block_size = size;
        self
    }

    pub fn with_block_cache(mut self, on: bool) -> Self {
        self.block_cache = on;
        self
    }

    pub fn with_in_memory(mut self, on: bool) -> Self {
        self.in_memory = on;
        self
    }

    pub fn with_compression(mut self, c: Compression) -> Self {
        self.compression = c;
        self
    }

    pub fn with_bloom_filter(mut self, b: BloomType) -> Self {
        self.bloom_filter = b;
        self
    }

    /// The TTL in milliseconds, or `None` for FOREVER.
    pub fn ttl_millis(&self) -> Option<i64> {
        (self.ttl_seconds != TTL_FOREVER).then(|| i64::from(self.ttl_seconds) * 1000)
    }

    /// The family name as text (lossy for non-UTF-8 names, which validation forbids anyway).
    pub fn name_str(&self) -> String {
        to_string_binary(&self.name)
    }

    /// Checks the name and the attributes, as HBase's `TableDescriptorChecker` does.
    pub fn validate(&self) -> Result<()> {
        validate_family_name(&self.name)?;
        let bad = |reason: String| Error::InvalidDescriptor {
            what: format!("column family {}", self.name_str()),
            reason,
        };
        if self.max_versions == 0 {
            return Err(bad("VERSIONS must be positive".into()));
        }
        if self.min_versions > self.max_versions {
            return Err(bad(format!(
                "MIN_VERSIONS ({}) must not be greater than VERSIONS ({})",
                self.min_versions, self.max_versions
            )));
        }
        if self.ttl_seconds == 0 || self.ttl_seconds > TTL_FOREVER {
            return Err(bad(format!(
                "TTL must be positive and at most {TTL_FOREVER} seconds"
            )));
        }
        if !(1024..=16 * 1024 * 1024).contains(&self.block_size) {
            return Err(bad(format!(
                "BLOCKSIZE must be between 1K and 16MB, got {}",
                self.block_size
            )));
        }
        if self.bloom_filter == BloomType::RowPrefixFixedLength {
            let length = self.configuration.get(ROW_PREFIX_BLOOM_LENGTH_KEY);
            if length
                .and_then(|l| l.parse::<u32>().ok())
                .is_none_or(|l| l == 0)
            {
                return Err(bad(format!(
                    "BLOOMFILTER ROWPREFIX_FIXED_LENGTH needs CONFIGURATION {{'{}' => N}} \
                     with N a positive number of bytes",
                    ROW_PREFIX_BLOOM_LENGTH_KEY
                )));
            }
        }
        if self.replication_scope > 1 {
            return Err(bad(format!(
                "REPLICATION_SCOPE must be 0 (local) or 1 (global), got {}",
                self.replication_scope
            )));
        }
        Ok(())
    }

    /// Refuses, naming it, every attribute Basalt would accept and not act on (see
    /// [`crate::TableDescriptor::check_supported`]).
    pub fn check_supported(&self) -> Result<()> {
        let refuse = |attribute: &str, reason: String| Error::InvalidDescriptor {
            what: format!("column family {}", self.name_str()),
            reason: format!("{attribute}: {reason}"),
        };
        let codecs = [
            ("COMPRESSION", Some(self.compression)),
            ("COMPRESSION_COMPACT", self.compression_compact),
            ("COMPRESSION_COMPACT_MAJOR", self.compression_compact_major),
            ("COMPRESSION_COMPACT_MINOR", self.compression_compact_minor),
        ];
        for (attribute, codec) in codecs {
            if let Some(c) = codec
                && matches!(
                    c,
                    Compression::Lzo | Compression::Bzip2 | Compression::Lzma | Compression::Brotli
                )
            {
                return Err(refuse(
                    attribute,
                    format!("{c} is not built into Basalt (it has NONE, GZ, SNAPPY, LZ4, ZSTD)"),
                ));
            }
        }
        if self.index_block_encoding != IndexBlockEncoding::None {
            return Err(refuse(
                "INDEX_BLOCK_ENCODING",
                format!(
                    "{}: Basalt's index blocks have one encoding, NONE",
                    self.index_block_encoding
                ),
            ));
        }
        if self.new_version_behavior && self.keep_deleted_cells != KeepDeletedCells::False {
            return Err(refuse(
                "NEW_VERSION_BEHAVIOR",
                "together with KEEP_DELETED_CELLS is not supported yet".into(),
            ));
        }
        if matches!(
            self.in_memory_compaction,
            Some(MemoryCompaction::Eager | MemoryCompaction::Adaptive)
        ) {
            return Err(refuse(
                "IN_MEMORY_COMPACTION",
                "Basalt flattens memstores in memory (BASIC) or not at all (NONE); EAGER and \
                 ADAPTIVE are not supported"
                    .into(),
            ));
        }
        let defaults = ColumnFamilyDescriptor::new(self.name.clone());
        if self.is_mob
            || self.mob_threshold != defaults.mob_threshold
            || self.mob_compact_partition_policy != defaults.mob_compact_partition_policy
        {
            return Err(refuse("IS_MOB", "Basalt has no MOB storage".into()));
        }
        if self.dfs_replication != 0 {
            return Err(refuse(
                "DFS_REPLICATION",
                "an HDFS setting; Basalt does not store on HDFS".into(),
            ));
        }
        if self.storage_policy.is_some() {
            return Err(refuse(
                "STORAGE_POLICY",
                "an HDFS setting; Basalt does not store on HDFS".into(),
            ));
        }
        if self.encryption.is_some() || self.encryption_key.is_some() {
            return Err(refuse(
                "ENCRYPTION",
                "Basalt does not encrypt store files yet".into(),
            ));
        }
        Ok(())
    }

    /// Sets an attribute by its HBase name (`VERSIONS`, `TTL`, `BLOCKCACHE`, ...), as the shell
    /// and the gateways receive them; case matters, as in HBase. Unknown names are kept as
    /// METADATA, as HBase does.
    pub fn set_attribute(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "NAME" => self.name = Bytes::copy_from_slice(value.as_bytes()),
            "VERSIONS" => self.max_versions = parse_num(key, value)?,
            "MIN_VERSIONS" => self.min_versions = parse_num(key, value)?,
            "TTL" => self.ttl_seconds = parse_ttl(value)?,
            "KEEP_DELETED_CELLS" => self.keep_deleted_cells = value.parse()?,
            // `describe` prints `65536 B (64KB)`.
            "BLOCKSIZE" => {
                let number = value.split_whitespace().next().unwrap_or(value);
                self.block_size = parse_num(key, number)?;
            }
            "BLOCKCACHE" => self.block_cache = parse_bool(key, value)?,
            "IN_MEMORY" => self.in_memory = parse_bool(key, value)?,
            "COMPRESSION" => self.compression = value.parse()?,
            "COMPRESSION_COMPACT" => self.compression_compact = Some(value.parse()?),
            "COMPRESSION_COMPACT_MAJOR" => self.compression_compact_major = Some(value.parse()?),
            "COMPRESSION_COMPACT_MINOR" => self.compression_compact_minor = Some(value.parse()?),
            "DATA_BLOCK_ENCODING" => self.data_block_encoding = value.parse()?,
            "INDEX_BLOCK_ENCODING" => self.index_block_encoding = value.parse()?,
            "BLOOMFILTER" => self.bloom_filter = value.parse()?,
            "REPLICATION_SCOPE" => self.replication_scope = parse_num(key, value)?,
            "CACHE_DATA_ON_WRITE" => self.cache_data_on_write = parse_bool(key, value)?,
            "CACHE_INDEX_ON_WRITE" => self.cache_index_on_write = parse_bool(key, value)?,
            "CACHE_BLOOMS_ON_WRITE" => self.cache_blooms_on_write = parse_bool(key, value)?,
            "EVICT_BLOCKS_ON_CLOSE" => self.evict_blocks_on_close = parse_bool(key, value)?,
            "PREFETCH_BLOCKS_ON_OPEN" => self.prefetch_blocks_on_open = parse_bool(key, value)?,
            "COMPRESS_TAGS" => self.compress_tags = parse_bool(key, value)?,
            "NEW_VERSION_BEHAVIOR" => self.new_version_behavior = parse_bool(key, value)?,
            "IN_MEMORY_COMPACTION" => self.in_memory_compaction = Some(value.parse()?),
            "IS_MOB" => self.is_mob = parse_bool(key, value)?,
            "MOB_THRESHOLD" => self.mob_threshold = parse_num(key, value)?,
            "MOB_COMPACT_PARTITION_POLICY" => self.mob_compact_partition_policy = value.parse()?,
            "DFS_REPLICATION" => self.dfs_replication = parse_num(key, value)?,
            "STORAGE_POLICY" => self.storage_policy = Some(value.to_owned()),
            "ENCRYPTION" => self.encryption = Some(value.to_owned()),
            "ENCRYPTION_KEY" => self.encryption_key = Some(value.as_bytes().to_vec()),
            _ => {
                self.metadata.insert(key.to_owned(), value.to_owned());
            }
        }
        Ok(())
    }

    /// [`Self::attributes`] as HBase's descriptors carry them on the wire: TTL and BLOCKSIZE
    /// as plain numbers (HBase's client parses them with `Integer.parseInt`; no expiry is
    /// 2147483647, HConstants.FOREVER), the rest as `describe` prints them.
    pub fn wire_attributes(&self) -> Vec<(&'static str, String)> {
        let mut out = self.attributes();
        for (k, v) in &mut out {
            match *k {
                "TTL" => *v = self.ttl_seconds.to_string(),
                "BLOCKSIZE" => *v = self.block_size.to_string(),
                _ => {}
            }
        }
        out
    }

    /// Every attribute as `(HBASE_NAME, value)`, in the order `describe` prints them: the
    /// always-shown ones first, then any that differ from their default.
    pub fn attributes(&self) -> Vec<(&'static str, String)> {
        let d = ColumnFamilyDescriptor::new(self.name.clone());
        let mut out: Vec<(&'static str, String)> = vec![
            ("BLOOMFILTER", self.bloom_filter.to_string()),
            ("IN_MEMORY", self.in_memory.to_string()),
            ("VERSIONS", self.max_versions.to_string()),
            ("KEEP_DELETED_CELLS", self.keep_deleted_cells.to_string()),
            ("DATA_BLOCK_ENCODING", self.data_block_encoding.to_string()),
            ("COMPRESSION", self.compression.to_string()),
            ("TTL", format_ttl(self.ttl_seconds)),
            ("MIN_VERSIONS", self.min_versions.to_string()),
            ("BLOCKCACHE", self.block_cache.to_string()),
            ("BLOCKSIZE", format_block_size(self.block_size)),
            ("REPLICATION_SCOPE", self.replication_scope.to_string()),
        ];
        let mut extra = |name: &'static str, differs: bool, value: String| {
            if differs {
                out.push((name, value));
            }
        };
        let opt = |c: Option<Compression>| c.map(|c| c.to_string()).unwrap_or_default();
        extra(
            "COMPRESSION_COMPACT",
            self.compression_compact.is_some(),
            opt(self.compression_compact),
        );
        extra(
            "COMPRESSION_COMPACT_MAJOR",
            self.compression_compact_major.is_some(),
            opt(self.compression_compact_major),
        );
        extra(
            "COMPRESSION_COMPACT_MINOR",
            self.compression_compact_minor.is_some(),
            opt(self.compression_compact_minor),
        );
        let flags = [
            (
                "CACHE_DATA_ON_WRITE",
                self.cache_data_on_write,
                d.cache_data_on_write,
            ),
            (
                "CACHE_INDEX_ON_WRITE",
                self.cache_index_on_write,
                d.cache_index_on_write,
            ),
            (
                "CACHE_BLOOMS_ON_WRITE",
                self.cache_blooms_on_write,
                d.cache_blooms_on_write,
            ),
            (
                "EVICT_BLOCKS_ON_CLOSE",
                self.evict_blocks_on_close,
                d.evict_blocks_on_close,
            ),
            (
                "PREFETCH_BLOCKS_ON_OPEN",
                self.prefetch_blocks_on_open,
                d.prefetch_blocks_on_open,
            ),
            ("COMPRESS_TAGS", self.compress_tags, d.compress_tags),
            (
                "NEW_VERSION_BEHAVIOR",
                self.new_version_behavior,
                d.new_version_behavior,
            ),
            ("IS_MOB", self.is_mob, d.is_mob),
        ];
        for (name, value, default) in flags {
            extra(name, value != default, value.to_string());
        }
        extra(
            "IN_MEMORY_COMPACTION",
            self.in_memory_compaction.is_some(),
            self.in_memory_compaction
                .map(|m| m.to_string())
                .unwrap_or_default(),
        );
        extra(
            "MOB_THRESHOLD",
            self.mob_threshold != d.mob_threshold,
            self.mob_threshold.to_string(),
        );
        extra(
            "MOB_COMPACT_PARTITION_POLICY",
            self.mob_compact_partition_policy != d.mob_compact_partition_policy,
            self.mob_compact_partition_policy.to_string(),
        );
        extra(
            "DFS_REPLICATION",
            self.dfs_replication != 0,
            self.dfs_replication.to_string(),
        );
        extra(
            "STORAGE_POLICY",
            self.storage_policy.is_some(),
            self.storage_policy.clone().unwrap_or_default(),
        );
        extra(
            "ENCRYPTION",
            self.encryption.is_some(),
            self.encryption.clone().unwrap_or_default(),
        );
        extra(
            "INDEX_BLOCK_ENCODING",
            self.index_block_encoding != d.index_block_encoding,
            self.index_block_encoding.to_string(),
        );
        out
    }
}

/// HBase's describe form: `{NAME => 'cf', BLOOMFILTER => 'ROW', ...}`.
impl fmt::Display for ColumnFamilyDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{NAME => '{}'", self.name_str())?;
        for (k, v) in self.attributes() {
            write!(f, ", {k} => '{v}'")?;
        }
        write_map(f, "METADATA", &self.metadata)?;
        write_map(f, "CONFIGURATION", &self.configuration)?;
        f.write_str("}")
    }
}

pub(crate) fn write_map(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    map: &BTreeMap<String, String>,
) -> fmt::Result {
    if map.is_empty() {
        return Ok(());
    }
    write!(f, ", {name} => {{")?;
    for (i, (k, v)) in map.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        write!(f, "{sep}'{k}' => '{v}'")?;
    }
    f.write_str("}")
}

/// HBase's `isLegalColumnFamilyName`.
pub fn validate_family_name(name: &[u8]) -> Result<()> {
    let bad = |reason| Error::InvalidFamilyName {
        name: BinaryDisplay::new(name),
        reason,
    };
    if name.is_empty() {
        return Err(bad("family name must not be empty"));
    }
    if name.len() > MAX_FAMILY_NAME_LENGTH {
        return Err(bad("family name must be at most 127 bytes"));
    }
    if name[0] == b'.' {
        return Err(bad("family name must not start with '.'"));
    }
    if name == b"recovered.edits" {
        return Err(bad("'recovered.edits' is reserved"));
    }
    if name
        .iter()
        .any(|&b| b.is_ascii_control() || b == b':' || b == b'\\' || b == b'/')
    {
        return Err(bad(
            "family name must be printable and contain no ':', '\\' or '/'",
        ));
    }
    Ok(())
}

pub(crate) fn parse_bool(key: &str, value: &str) -> Result<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(Error::InvalidArgument(format!(
            "{key} must be true or false, got {value:?}"
        ))),
    }
}

pub(crate) fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T> {
    value
        .trim()
        .parse()
        .map_err(|_| Error::InvalidArgument(format!("{key} must be a number, got {value:?}")))
}

/// A TTL in seconds, `FOREVER`, or an interval like `1 DAY` / `2 HOURS 30 MINUTES`.
pub fn parse_ttl(value: &str) -> Result<u32> {
    // `describe` prints `86400 SECONDS (1 DAY)`; the part in parentheses only repeats it.
    let v = value.split('(').next().unwrap_or(value).trim();
    if v.eq_ignore_ascii_case("FOREVER") {
        return Ok(TTL_FOREVER);
    }
    if let Ok(n) = v.parse::<u32>() {
        return Ok(n);
    }
    let bad = || Error::InvalidArgument(format!("TTL {value:?} is not seconds or an interval"));
    let words: Vec<&str> = v.split_whitespace().collect();
    if !words.len().is_multiple_of(2) {
        return Err(bad());
    }
    let mut total: u64 = 0;
    for pair in words.chunks(2) {
        let n: u64 = pair[0].parse().map_err(|_| bad())?;
        let unit = pair[1].to_ascii_uppercase();
        let secs = match unit.trim_end_matches('S') {
            "SECOND" => 1,
            "MINUTE" => 60,
            "HOUR" => 3600,
            "DAY" => 86_400,
            _ => return Err(bad()),
        };
        total = total.saturating_add(n.saturating_mul(secs));
    }
    u32::try_from(total)
        .ok()
        .filter(|&t| t <= TTL_FOREVER)
        .ok_or_else(bad)
}

/// `FOREVER`, or HBase's `86400 SECONDS (1 DAY)` form.
pub fn format_ttl(ttl: u32) -> String {
    if ttl == TTL_FOREVER {
        return "FOREVER".into();
    }
    let mut parts = Vec::new();
    let mut rest = ttl;
    for (unit, secs) in [
        ("DAY", 86_400),
        ("HOUR", 3600),
        ("MINUTE", 60),
        ("SECOND", 1),
    ] {
        let n = rest / secs;
        rest %= secs;
        if n > 0 {
            parts.push(format!("{n} {unit}{}", if n == 1 { "" } else { "S" }));
        }
    }
    if parts.len() == 1 && ttl < 60 {
        return format!("{ttl} SECONDS");
    }
    format!("{ttl} SECONDS ({})", parts.join(" "))
}

/// HBase's `65536 B (64KB)` form.
pub fn format_block_size(size: u32) -> String {
    if size >= 1024 * 1024 && size.is_multiple_of(1024 * 1024) {
        format!("{size} B ({}MB)", size / (1024 * 1024))
    } else if size >= 1024 && size.is_multiple_of(1024) {
        format!("{size} B ({}KB)", size / 1024)
    } else {
        format!("{size} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_basalts() {
        let cf = ColumnFamilyDescriptor::new("cf");
        assert_eq!(cf.max_versions, 3);
        assert_eq!(cf.ttl_millis(), None);
        assert_eq!(cf.bloom_filter, BloomType::Row);
        assert!(cf.validate().is_ok());
        assert_eq!(
            cf.to_string(),
            "{NAME => 'cf', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '3', \
             KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'NONE', COMPRESSION => 'NONE', \
             TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', \
             BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}"
        );
    }

    #[test]
    fn attributes_set_by_name() {
        let mut cf = ColumnFamilyDescriptor::new("cf1");
        cf.set_attribute("BLOCKSIZE", "65536").unwrap();
        cf.set_attribute("BLOCKCACHE", "FALSE").unwrap();
        cf.set_attribute("COMPRESSION", "SNAPPY").unwrap();
        cf.set_attribute("TTL", "1 DAY").unwrap();
        assert!(!cf.block_cache);
        assert_eq!(cf.compression, Compression::Snappy);
        assert_eq!(cf.ttl_seconds, 86_400);
        let text = cf.to_string();
        assert!(text.contains("TTL => '86400 SECONDS (1 DAY)'"), "{text}");
        assert!(cf.set_attribute("VERSIONS", "many").is_err());
        assert!(cf.set_attribute("BLOOMFILTER", "MAYBE").is_err());
    }

    #[test]
    fn validation_names_the_problem() {
        let e = ColumnFamilyDescriptor::new("cf")
            .with_min_versions(4)
            .validate()
            .unwrap_err();
        assert!(e.to_string().contains("MIN_VERSIONS (4)"), "{e}");
        assert!(
            ColumnFamilyDescriptor::new("cf")
                .with_ttl_seconds(0)
                .validate()
                .is_err()
        );
        assert!(
            ColumnFamilyDescriptor::new("cf")
                .with_max_versions(0)
                .validate()
                .is_err()
        );
        assert!(
            ColumnFamilyDescriptor::new("cf")
                .with_block_size(100)
                .validate()
                .is_err()
        );
        for bad in [
            &b""[..],
            b".x",
            b"a:b",
            b"a/b",
            b"a\\b",
            b"a\nb",
            b"recovered.edits",
        ] {
            assert!(validate_family_name(bad).is_err(), "{bad:?}");
        }
        assert!(validate_family_name(&[b'f'; 128]).is_err());
        assert!(validate_family_name(b"Personal Data-1").is_ok());
    }

    #[test]
    fn ttl_forms() {
        assert_eq!(parse_ttl("FOREVER").unwrap(), TTL_FOREVER);
        assert_eq!(parse_ttl("90").unwrap(), 90);
        assert_eq!(parse_ttl("2 HOURS 30 MINUTES").unwrap(), 9000);
        assert!(parse_ttl("soon").is_err());
        assert_eq!(
            format_ttl(90061),
            "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)"
        );
        assert_eq!(format_ttl(30), "30 SECONDS");
        assert_eq!(
            parse_ttl("86400 SECONDS (1 DAY)").unwrap(),
            86_400,
            "describe's own form"
        );
        let mut cf = ColumnFamilyDescriptor::new("cf");
        cf.set_attribute("BLOCKSIZE", "65536 B (64KB)").unwrap();
        assert_eq!(cf.block_size, 65_536);
    }
}
