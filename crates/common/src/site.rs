//! A server's settings file (`--site`, HBase's `hbase-site.xml` format) and the settings that
//! change while the server runs: `update_config` (AdminService UpdateConfiguration) reads the
//! file again and applies the keys listed in [`LIVE_KEYS`]; other keys take effect at restart.
//!
//! The file is HBase's: `<configuration>` holding `<property>` elements, each with a `<name>`
//! and a `<value>` (and optionally `<description>` or `<final>`, ignored). The five predefined
//! XML entities and numeric character references are decoded; comments are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::Error;

/// The keys a running server applies when its settings file is read again, with what each
/// does. Every other key takes effect when the server starts.
pub const LIVE_KEYS: &[(&str, &str)] = &[
    (
        BALANCER_PERIOD,
        "milliseconds between the master's balancer runs",
    ),
    (
        NORMALIZER_PERIOD,
        "milliseconds between the master's normalizer runs",
    ),
    (
        CATALOG_JANITOR_INTERVAL,
        "milliseconds between the master's catalog janitor runs",
    ),
    (
        MEMSTORE_FLUSH_SIZE,
        "bytes a region's memstores hold before they are flushed, for tables whose \
         MEMSTORE_FLUSHSIZE is left at its default",
    ),
    (
        SLOW_RESPONSE_MS,
        "milliseconds after which a call goes into the server's slow log",
    ),
    (
        LARGE_RESPONSE_BYTES,
        "response bytes past which a call goes into the server's large log",
    ),
    (
        SNAPSHOT_CLEANUP_INTERVAL,
        "milliseconds between the master's runs deleting snapshots past their TTL",
    ),
    (
        QUOTA_OBSERVER_PERIOD,
        "milliseconds between the master's computations of tables' space use against their \
         space quotas",
    ),
];

pub const BALANCER_PERIOD: &str = "hbase.balancer.period";
pub const NORMALIZER_PERIOD: &str = "hbase.normalizer.period";
pub const CATALOG_JANITOR_INTERVAL: &str = "hbase.catalogjanitor.interval";
pub const MEMSTORE_FLUSH_SIZE: &str = "hbase.hregion.memstore.flush.size";
pub const SLOW_RESPONSE_MS: &str = "hbase.ipc.warn.response.time";
pub const LARGE_RESPONSE_BYTES: &str = "hbase.ipc.warn.response.size";
pub const SNAPSHOT_CLEANUP_INTERVAL: &str = "hbase.master.cleaner.snapshot.interval";
pub const QUOTA_OBSERVER_PERIOD: &str = "hbase.master.quotas.observer.chore.period";

/// The defaults of [`LIVE_KEYS`], in the same order: HBase's, but for the catalog janitor,
/// which Basalt runs every 5 seconds (HBase: 5 minutes) so split parents go soon.
const DEFAULTS: [u64; 8] = [
    300_000,
    300_000,
    5_000,
    128 * 1024 * 1024,
    10_000,
    100 * 1024 * 1024,
    1_800_000,
    60_000,
];

/// What one reading of the settings file changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// Live keys whose value changed: (key, old, new).
    pub changed: Vec<(String, u64, u64)>,
    /// Keys whose value changed that take effect only at restart.
    pub at_restart: Vec<String>,
}

/// A server's settings: the file it was started with (if any), what it held when last read,
/// and the live values, which the server's threads read on each use.
#[derive(Debug)]
pub struct LiveSettings {
    site: Option<PathBuf>,
    read: Mutex<BTreeMap<String, String>>,
    values: [AtomicU64; 8],
}

impl Default for LiveSettings {
    fn default() -> Self {
        LiveSettings {
            site: None,
            read: Mutex::default(),
            values: DEFAULTS.map(AtomicU64::new),
        }
    }
}

fn slot(key: &str) -> Option<usize> {
    LIVE_KEYS.iter().position(|(k, _)| *k == key)
}

impl LiveSettings {
    /// Settings read from `site` (none: HBase's defaults, and `update_config` is refused).
    pub fn load(site: Option<&Path>) -> Result<Self, Error> {
        let settings = LiveSettings {
            site: site.map(Path::to_path_buf),
            ..LiveSettings::default()
        };
        settings.reload()?;
        Ok(settings)
    }

    /// The settings file, if the server has one.
    pub fn site(&self) -> Option<&Path> {
        self.site.as_deref()
    }

    /// Sets a live key (a command-line flag given at start); unknown keys are refused.
    pub fn set(&self, key: &str, value: u64) -> Result<(), Error> {
        let i = slot(key).ok_or_else(|| {
            Error::InvalidArgument(format!("{key} is not a setting that changes live"))
        })?;
        self.values[i].store(value, Ordering::Relaxed);
        Ok(())
    }

    /// A live key's value now.
    pub fn get(&self, key: &str) -> Option<u64> {
        slot(key).map(|i| self.values[i].load(Ordering::Relaxed))
    }

    pub fn balancer_period_ms(&self) -> u64 {
        self.values[0].load(Ordering::Relaxed)
    }

    pub fn normalizer_period_ms(&self) -> u64 {
        self.values[1].load(Ordering::Relaxed)
    }

    pub fn catalog_janitor_interval_ms(&self) -> u64 {
        self.values[2].load(Ordering::Relaxed)
    }

    pub fn memstore_flush_size(&self) -> u64 {
        self.values[3].load(Ordering::Relaxed)
    }

    pub fn slow_response_ms(&self) -> u64 {
        self.values[4].load(Ordering::Relaxed)
    }

    pub fn large_response_bytes(&self) -> u64 {
        self.values[5].load(Ordering::Relaxed)
    }

    pub fn snapshot_cleanup_interval_ms(&self) -> u64 {
        self.values[6].load(Ordering::Relaxed)
    }

    pub fn quota_observer_period_ms(&self) -> u64 {
        self.values[7].load(Ordering::Relaxed)
    }

    /// Every key the file held when last read, with its value.
    pub fn file_values(&self) -> BTreeMap<String, String> {
        self.read
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// [`LiveSettings::reload`] for AdminService UpdateConfiguration: says in the server's log
    /// (its standard error) what changed. A server started without a settings file refuses,
    /// having none to read.
    pub fn update(&self, server: &str) -> Result<Reloaded, Error> {
        use std::io::Write as _;
        let Some(site) = self.site() else {
            return Err(Error::InvalidArgument(format!(
                "{server} was started without a settings file (--site): there is nothing to \
                 read again"
            )));
        };
        let report = self.reload()?;
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{server}: read {} again", site.display());
        for (key, old, new) in &report.changed {
            let _ = writeln!(err, "{server}: {key} is now {new} (was {old})");
        }
        for key in &report.at_restart {
            let _ = writeln!(err, "{server}: {key} changed; it takes effect at restart");
        }
        Ok(report)
    }

    /// Reads the settings file again and applies its live keys (a key the file no longer
    /// names keeps its value). Nothing changes if the file cannot be read or a live key's
    /// value is not a number: the error names the file and the key.
    pub fn reload(&self) -> Result<Reloaded, Error> {
        let Some(site) = &self.site else {
            return Ok(Reloaded::default());
        };
        let text = std::fs::read_to_string(site).map_err(|e| {
            Error::InvalidArgument(format!("cannot read settings file {}: {e}", site.display()))
        })?;
        let file = parse(&text).map_err(|e| {
            Error::InvalidArgument(format!("settings file {}: {e}", site.display()))
        })?;
        let mut parsed = Vec::new();
        for (key, value) in &file {
            if let Some(i) = slot(key) {
                let n = parse_number(value).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "settings file {}: {key} must be a whole number, not {value:?}",
                        site.display()
                    ))
                })?;
                parsed.push((i, n));
            }
        }
        let mut report = Reloaded::default();
        for (i, n) in parsed {
            let old = self.values[i].swap(n, Ordering::Relaxed);
            if old != n {
                report.changed.push((LIVE_KEYS[i].0.to_owned(), old, n));
            }
        }
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        let before = std::mem::replace(&mut *read, file);
        for (key, value) in read.iter() {
            if slot(key).is_none() && before.get(key) != Some(value) && !before.is_empty() {
                report.at_restart.push(key.clone());
            }
        }
        Ok(report)
    }
}

/// A number as HBase's Configuration.getLong takes it (surrounding blanks ignored).
fn parse_number(value: &str) -> Option<u64> {
    value.trim().parse().ok()
}

/// The properties of an `hbase-site.xml` text, by name (a later one wins).
pub fn parse(text: &str) -> Result<BTreeMap<String, String>, String> {
    let root = crate::xml::parse(text.as_bytes())?;
    let properties: Vec<&crate::xml::Element> = if root.name == "property" {
        vec![&root]
    } else {
        root.children_named("property").collect()
    };
    let mut out = BTreeMap::new();
    for property in properties {
        let name = property
            .child("name")
            .ok_or_else(|| "a <property> has no <name>".to_owned())?
            .text
            .trim()
            .to_owned();
        if name.is_empty() {
            return Err("a <property> has an empty <name>".into());
        }
        let value = match property.child("value") {
            Some(v) if !v.children.is_empty() => {
                return Err(format!("the value of {name} holds markup, not text"));
            }
            Some(v) => v.text.clone(),
            None => String::new(),
        };
        out.insert(name, value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SITE: &str = r#"<?xml version="1.0"?>
<configuration>
  <!-- a comment <property><name>ignored</name></property> is not one -->
  <property>
    <name>hbase.balancer.period</name>
    <value>60000</value>
    <description>once a minute</description>
  </property>
  <property><name>hbase.rootdir</name><value>file:///a&amp;b</value></property>
  <property><name>empty</name><value/></property>
</configuration>"#;

    #[test]
    fn reads_hbase_site_files() {
        let props = parse(SITE).unwrap();
        assert_eq!(props["hbase.balancer.period"], "60000");
        assert_eq!(props["hbase.rootdir"], "file:///a&b");
        assert_eq!(props["empty"], "");
        assert_eq!(props.len(), 3, "{props:?}");
        assert!(parse("<property><value>1</value></property>").is_err());
        assert!(parse("<property><name>a</name>").is_err());
    }

    #[test]
    fn reload_applies_live_keys_and_names_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hbase-site.xml");
        std::fs::write(&path, SITE).unwrap();
        let live = LiveSettings::load(Some(&path)).unwrap();
        assert_eq!(live.balancer_period_ms(), 60_000);
        assert_eq!(live.memstore_flush_size(), 128 << 20);
        std::fs::write(
            &path,
            SITE.replace("60000", "1000")
                .replace("file:///a&amp;b", "file:///c")
                .replace(
                    "</configuration>",
                    "<property><name>hbase.hregion.memstore.flush.size</name>\
                     <value> 1048576 </value></property></configuration>",
                ),
        )
        .unwrap();
        let report = live.reload().unwrap();
        assert_eq!(
            report.changed,
            vec![
                (BALANCER_PERIOD.to_owned(), 60_000, 1000),
                (MEMSTORE_FLUSH_SIZE.to_owned(), 128 << 20, 1 << 20)
            ]
        );
        assert_eq!(report.at_restart, vec!["hbase.rootdir".to_owned()]);
        assert_eq!(live.memstore_flush_size(), 1 << 20);

        // A bad number changes nothing and names the key.
        std::fs::write(&path, SITE.replace("60000", "soon")).unwrap();
        let err = live.reload().unwrap_err().to_string();
        assert!(err.contains("hbase.balancer.period"), "{err}");
        assert_eq!(live.balancer_period_ms(), 1000);
    }
}
