//! `TableDescriptor`: a table's name, families and table-level attributes.

use std::collections::BTreeMap;
use std::fmt;

use crate::error::{Error, Result};
use crate::family_descriptor::{ColumnFamilyDescriptor, parse_bool, parse_num};
use crate::schema::Durability;
use crate::table_name::TableName;

/// Default region split threshold (`hbase.hregion.max.filesize`, 10 GiB).
/// The split policies Basalt implements (`SPLIT_POLICY`, by simple class name).
pub const SPLIT_POLICIES: [&str; 4] = [
    "SteppingSplitPolicy",
    "IncreasingToUpperBoundRegionSplitPolicy",
    "ConstantSizeRegionSplitPolicy",
    "DisabledRegionSplitPolicy",
];

pub const DEFAULT_MAX_FILESIZE: u64 = 10 * 1024 * 1024 * 1024;
/// Default memstore flush threshold (`hbase.hregion.memstore.flush.size`, 128 MiB).
pub const DEFAULT_MEMSTORE_FLUSHSIZE: u64 = 128 * 1024 * 1024;

/// A table's schema. Families are kept sorted by name, as HBase's stores are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDescriptor {
    pub name: TableName,
    families: Vec<ColumnFamilyDescriptor>,
    pub max_filesize: u64,
    pub memstore_flushsize: u64,
    pub read_only: bool,
    pub durability: Durability,
    pub split_policy: Option<String>,
    pub compaction_enabled: bool,
    pub split_enabled: bool,
    pub merge_enabled: bool,
    pub normalization_enabled: bool,
    pub normalizer_target_region_count: Option<u32>,
    pub normalizer_target_region_size_mb: Option<u64>,
    pub region_replication: u32,
    pub region_memstore_replication: bool,
    pub priority: i32,
    pub flush_policy: Option<String>,
    pub owner: Option<String>,
    pub erasure_coding_policy: Option<String>,
    pub is_meta: bool,
    /// `coprocessor$N` values (`path|class|priority|args`); stored and reported only.
    pub coprocessors: Vec<String>,
    pub metadata: BTreeMap<String, String>,
    pub configuration: BTreeMap<String, String>,
}

impl TableDescriptor {
    /// A table with no families yet and every attribute at its default.
    pub fn new(name: TableName) -> Self {
        TableDescriptor {
            name,
            families: Vec::new(),
            max_filesize: DEFAULT_MAX_FILESIZE,
            memstore_flushsize: DEFAULT_MEMSTORE_FLUSHSIZE,
            read_only: false,
            durability: Durability::UseDefault,
            split_policy: None,
            compaction_enabled: true,
            split_enabled: true,
            merge_enabled: true,
            normalization_enabled: false,
            normalizer_target_region_count: None,
            normalizer_target_region_size_mb: None,
            region_replication: 1,
            region_memstore_replication: true,
            priority: 0,
            flush_policy: None,
            owner: None,
            erasure_coding_policy: None,
            is_meta: false,
            coprocessors: Vec::new(),
            metadata: BTreeMap::new(),
            configuration: BTreeMap::new(),
        }
    }

    /// Parses the name and creates a descriptor; `TableDescriptor::named("t")?.with_family(..)`.
    pub fn named(name: &str) -> Result<Self> {
        Ok(TableDescriptor::new(TableName::parse(name)?))
    }

    /// Adds a family; a second family of the same name is an error at validation.
    pub fn with_family(mut self, family: ColumnFamilyDescriptor) -> Self {
        self.add_family(family);
        self
    }

    /// Adds a family, keeping the list sorted by name.
    pub fn add_family(&mut self, family: ColumnFamilyDescriptor) {
        let at = self.families.partition_point(|f| f.name <= family.name);
        self.families.insert(at, family);
    }

    /// Removes a family by name; returns it if it was there.
    pub fn remove_family(&mut self, name: &[u8]) -> Option<ColumnFamilyDescriptor> {
        let at = self.families.iter().position(|f| f.name == name)?;
        Some(self.families.remove(at))
    }

    /// The families, sorted by name.
    pub fn families(&self) -> &[ColumnFamilyDescriptor] {
        &self.families
    }

    pub fn family(&self, name: &[u8]) -> Option<&ColumnFamilyDescriptor> {
        self.families.iter().find(|f| f.name == name)
    }

    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Checks the table as HBase's `TableDescriptorChecker` does, and every family.
    pub fn validate(&self) -> Result<()> {
        let bad = |reason: String| Error::InvalidDescriptor {
            what: format!("table {}", self.name),
            reason,
        };
        if self.families.is_empty() {
            return Err(bad("a table needs at least one column family".into()));
        }
        if let Err(e) = crate::key_layout::KeyLayout::of(&self.metadata) {
            return Err(bad(e.to_string()));
        }
        for pair in self.families.windows(2) {
            if pair[0].name == pair[1].name {
                return Err(bad(format!(
                    "column family {} is given more than once",
                    pair[0].name_str()
                )));
            }
        }
        for f in &self.families {
            f.validate()?;
        }
        if self.max_filesize < 2 * 1024 * 1024 {
            return Err(bad(format!(
                "MAX_FILESIZE ({}) is too small (minimum 2 MiB); it would split into \
                 unmanageably many regions",
                self.max_filesize
            )));
        }
        if self.memstore_flushsize < 1024 * 1024 {
            return Err(bad(format!(
                "MEMSTORE_FLUSHSIZE ({}) is too small (minimum 1 MiB); it would flush very often",
                self.memstore_flushsize
            )));
        }
        if self.region_replication == 0 {
            return Err(bad("REGION_REPLICATION must be at least 1".into()));
        }
        Ok(())
    }

    /// Refuses, naming it, every attribute Basalt would accept and not act on: what a create
    /// or an alter checks (docs/design/schema.md). Opening a table written before a refusal
    /// was added does not check, so old tables stay readable.
    pub fn check_supported(&self) -> Result<()> {
        let refuse = |attribute: &str, reason: String| Error::InvalidDescriptor {
            what: format!("table {}", self.name),
            reason: format!("{attribute}: {reason}"),
        };
        if let Some(policy) = &self.split_policy {
            let name = policy.rsplit('.').next().unwrap_or(policy);
            if !SPLIT_POLICIES.contains(&name) {
                return Err(refuse(
                    "SPLIT_POLICY",
                    format!(
                        "{policy} is not a split policy Basalt has (it has {})",
                        SPLIT_POLICIES.join(", ")
                    ),
                ));
            }
        }
        if let Some(policy) = &self.flush_policy {
            let name = policy.rsplit('.').next().unwrap_or(policy);
            if name != "FlushAllStoresPolicy" {
                return Err(refuse(
                    "FLUSH_POLICY",
                    format!(
                        "{policy}: Basalt always flushes every store of a region (FlushAllStoresPolicy)"
                    ),
                ));
            }
        }
        if self.region_replication > 1 || !self.region_memstore_replication {
            return Err(refuse(
                "REGION_REPLICATION",
                "Basalt has no read replicas yet; only 1 is supported".into(),
            ));
        }
        if self.priority != 0 {
            return Err(refuse(
                "PRIORITY",
                "Basalt does not schedule requests by table priority".into(),
            ));
        }
        if self.erasure_coding_policy.is_some() {
            return Err(refuse(
                "ERASURE_CODING_POLICY",
                "an HDFS setting; Basalt does not store on HDFS".into(),
            ));
        }
        for (i, c) in self.coprocessors.iter().enumerate() {
            if let Err(Error::InvalidDescriptor { reason, .. }) =
                crate::coprocessor::CoprocessorSpec::parse(c)
            {
                return Err(Error::InvalidDescriptor {
                    what: format!("coprocessor${}", i + 1),
                    reason,
                });
            }
        }
        if let Some(k) = self
            .metadata
            .keys()
            .find(|k| k.to_ascii_lowercase().starts_with("coprocessor$"))
        {
            return Err(refuse(
                "coprocessor",
                format!("{k}: attach a coprocessor as coprocessor$N (that spelling)"),
            ));
        }
        for f in &self.families {
            f.check_supported()?;
        }
        Ok(())
    }

    /// Checks that every coprocessor module the table attaches can be read here and is a
    /// WebAssembly binary ([`crate::coprocessor::CoprocessorSpec::check_file`]).
    pub fn check_coprocessor_files(&self) -> Result<()> {
        for c in &self.coprocessors {
            crate::coprocessor::CoprocessorSpec::parse(c)?.check_file()?;
        }
        Ok(())
    }

    /// Sets a table attribute by its HBase name (case matters, as in HBase: `owner` is
    /// METADATA, `OWNER` the attribute). Unknown names are kept as METADATA.
    pub fn set_attribute(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "MAX_FILESIZE" => self.max_filesize = parse_num(key, value)?,
            "MEMSTORE_FLUSHSIZE" => self.memstore_flushsize = parse_num(key, value)?,
            "READONLY" => self.read_only = parse_bool(key, value)?,
            "DURABILITY" => self.durability = value.parse()?,
            "SPLIT_POLICY" => self.split_policy = Some(value.to_owned()),
            "COMPACTION_ENABLED" => self.compaction_enabled = parse_bool(key, value)?,
            "SPLIT_ENABLED" => self.split_enabled = parse_bool(key, value)?,
            "MERGE_ENABLED" => self.merge_enabled = parse_bool(key, value)?,
            "NORMALIZATION_ENABLED" => self.normalization_enabled = parse_bool(key, value)?,
            "NORMALIZER_TARGET_REGION_COUNT" => {
                self.normalizer_target_region_count = Some(parse_num(key, value)?)
            }
            "NORMALIZER_TARGET_REGION_SIZE_MB" => {
                self.normalizer_target_region_size_mb = Some(parse_num(key, value)?)
            }
            "REGION_REPLICATION" => self.region_replication = parse_num(key, value)?,
            "REGION_MEMSTORE_REPLICATION" => {
                self.region_memstore_replication = parse_bool(key, value)?
            }
            "PRIORITY" => self.priority = parse_num(key, value)?,
            "FLUSH_POLICY" => self.flush_policy = Some(value.to_owned()),
            "OWNER" => self.owner = Some(value.to_owned()),
            "ERASURE_CODING_POLICY" => self.erasure_coding_policy = Some(value.to_owned()),
            // HBase's shell takes 'coprocessor' => spec as the next `coprocessor$N`.
            _ if key.eq_ignore_ascii_case("COPROCESSOR")
                || key.to_ascii_uppercase().starts_with("COPROCESSOR$") =>
            {
                self.coprocessors.push(value.to_owned())
            }
            _ => {
                self.metadata.insert(key.to_owned(), value.to_owned());
            }
        }
        Ok(())
    }

    /// Puts a table attribute back to its default (the shell's `table_att_unset`); a METADATA
    /// key is removed. Unknown names are an error.
    pub fn unset_attribute(&mut self, key: &str) -> Result<()> {
        let d = TableDescriptor::new(self.name.clone());
        match key {
            "MAX_FILESIZE" => self.max_filesize = d.max_filesize,
            "MEMSTORE_FLUSHSIZE" => self.memstore_flushsize = d.memstore_flushsize,
            "READONLY" => self.read_only = d.read_only,
            "DURABILITY" => self.durability = d.durability,
            "SPLIT_POLICY" => self.split_policy = None,
            "COMPACTION_ENABLED" => self.compaction_enabled = d.compaction_enabled,
            "SPLIT_ENABLED" => self.split_enabled = d.split_enabled,
            "MERGE_ENABLED" => self.merge_enabled = d.merge_enabled,
            "NORMALIZATION_ENABLED" => self.normalization_enabled = d.normalization_enabled,
            "NORMALIZER_TARGET_REGION_COUNT" => self.normalizer_target_region_count = None,
            "NORMALIZER_TARGET_REGION_SIZE_MB" => self.normalizer_target_region_size_mb = None,
            "REGION_REPLICATION" => self.region_replication = d.region_replication,
            "REGION_MEMSTORE_REPLICATION" => {
                self.region_memstore_replication = d.region_memstore_replication
            }
            "PRIORITY" => self.priority = d.priority,
            "FLUSH_POLICY" => self.flush_policy = None,
            "OWNER" => self.owner = None,
            "ERASURE_CODING_POLICY" => self.erasure_coding_policy = None,
            _ if key.to_ascii_uppercase().starts_with("COPROCESSOR$") => {
                let n = key["COPROCESSOR$".len()..]
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=self.coprocessors.len()).contains(n))
                    .ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "table {} has no attribute {key} to unset",
                            self.name
                        ))
                    })?;
                self.coprocessors.remove(n - 1);
            }
            _ => {
                if self.metadata.remove(key).is_none() {
                    return Err(Error::InvalidArgument(format!(
                        "table {} has no attribute {key} to unset",
                        self.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// Table attributes that differ from their defaults, as `(HBASE_NAME, value)`; what
    /// `describe` prints under TABLE_ATTRIBUTES.
    pub fn non_default_attributes(&self) -> Vec<(String, String)> {
        let d = TableDescriptor::new(self.name.clone());
        let mut out = Vec::new();
        let mut push = |differs: bool, k: &str, v: String| {
            if differs {
                out.push((k.to_owned(), v));
            }
        };
        push(
            self.max_filesize != d.max_filesize,
            "MAX_FILESIZE",
            self.max_filesize.to_string(),
        );
        push(
            self.memstore_flushsize != d.memstore_flushsize,
            "MEMSTORE_FLUSHSIZE",
            self.memstore_flushsize.to_string(),
        );
        push(self.read_only, "READONLY", "true".into());
        push(
            self.durability != d.durability,
            "DURABILITY",
            self.durability.to_string(),
        );
        let opt = |o: &Option<String>| o.clone().unwrap_or_default();
        push(
            self.split_policy.is_some(),
            "SPLIT_POLICY",
            opt(&self.split_policy),
        );
        push(
            !self.compaction_enabled,
            "COMPACTION_ENABLED",
            "false".into(),
        );
        push(!self.split_enabled, "SPLIT_ENABLED", "false".into());
        push(!self.merge_enabled, "MERGE_ENABLED", "false".into());
        push(
            self.normalization_enabled,
            "NORMALIZATION_ENABLED",
            "true".into(),
        );
        if let Some(n) = self.normalizer_target_region_count {
            push(true, "NORMALIZER_TARGET_REGION_COUNT", n.to_string());
        }
        if let Some(n) = self.normalizer_target_region_size_mb {
            push(true, "NORMALIZER_TARGET_REGION_SIZE_MB", n.to_string());
        }
        push(
            self.region_replication != 1,
            "REGION_REPLICATION",
            self.region_replication.to_string(),
        );
        push(
            !self.region_memstore_replication,
            "REGION_MEMSTORE_REPLICATION",
            "false".into(),
        );
        push(self.priority != 0, "PRIORITY", self.priority.to_string());
        push(
            self.flush_policy.is_some(),
            "FLUSH_POLICY",
            opt(&self.flush_policy),
        );
        push(self.owner.is_some(), "OWNER", opt(&self.owner));
        push(
            self.erasure_coding_policy.is_some(),
            "ERASURE_CODING_POLICY",
            opt(&self.erasure_coding_policy),
        );
        push(self.is_meta, "IS_META", "true".into());
        for (i, c) in self.coprocessors.iter().enumerate() {
            out.push((format!("coprocessor${}", i + 1), c.clone()));
        }
        out
    }
}

/// HBase's describe header: `'t1', {TABLE_ATTRIBUTES => {...}}` then one family per line.
impl fmt::Display for TableDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}'", self.name)?;
        let attrs = self.non_default_attributes();
        let mut parts: Vec<String> = attrs.iter().map(|(k, v)| format!("{k} => '{v}'")).collect();
        for (name, map) in [
            ("METADATA", &self.metadata),
            ("CONFIGURATION", &self.configuration),
        ] {
            if !map.is_empty() {
                let entries: Vec<String> =
                    map.iter().map(|(k, v)| format!("'{k}' => '{v}'")).collect();
                parts.push(format!("{name} => {{{}}}", entries.join(", ")));
            }
        }
        if !parts.is_empty() {
            write!(f, ", {{TABLE_ATTRIBUTES => {{{}}}}}", parts.join(", "))?;
        }
        for family in &self.families {
            write!(f, "\n{family}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_sorted_and_unique() {
        let t = TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("b"))
            .with_family(ColumnFamilyDescriptor::new("a"));
        let names: Vec<_> = t.families().iter().map(|f| f.name_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(t.validate().is_ok());
        let dup = t.clone().with_family(ColumnFamilyDescriptor::new("a"));
        assert!(
            dup.validate()
                .unwrap_err()
                .to_string()
                .contains("more than once")
        );
    }

    #[test]
    fn validation() {
        let t = TableDescriptor::named("t").unwrap();
        assert!(
            t.validate()
                .unwrap_err()
                .to_string()
                .contains("at least one column family")
        );
        let mut t = t.with_family(ColumnFamilyDescriptor::new("cf"));
        t.set_attribute("MAX_FILESIZE", "1000").unwrap();
        assert!(
            t.validate()
                .unwrap_err()
                .to_string()
                .contains("MAX_FILESIZE")
        );
        t.set_attribute("MAX_FILESIZE", "1073741824").unwrap();
        t.set_attribute("DURABILITY", "ASYNC_WAL").unwrap();
        assert!(t.validate().is_ok());
        assert!(t.to_string().starts_with(
            "'t', {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1073741824', DURABILITY => 'ASYNC_WAL'}}"
        ));
    }
}
