//! Log levels per module, changed while the process runs (HBase's `/logLevel` page): the
//! named parts of Basalt (`flush`, `compaction`, `balancer`, `normalizer`, `hbck`, `rpc`,
//! ...) each log at a level, INFO unless set. Messages go to standard error as
//! `LEVEL module: message`.
//!
//! What the crates Basalt is built on report through the `log` facade (OpenDAL, reqwest,
//! and, through tracing's `log` bridge, ZooKeeper's client and hyper) reaches the same log
//! once the process calls [`install`], under the module `libraries` (WARN unless set).

use std::collections::BTreeMap;
use std::sync::{PoisonError, RwLock};

/// A message's importance, most important first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
            Level::Trace => "TRACE",
        }
    }

    /// A level by name, any case (HBase's `ALL` is TRACE, `OFF` is ERROR: Basalt never
    /// silences errors).
    pub fn parse(name: &str) -> Option<Level> {
        Some(match name.to_ascii_uppercase().as_str() {
            "ERROR" | "FATAL" | "OFF" => Level::Error,
            "WARN" => Level::Warn,
            "INFO" => Level::Info,
            "DEBUG" => Level::Debug,
            "TRACE" | "ALL" => Level::Trace,
            _ => return None,
        })
    }
}

/// The modules that log, and what each logs about.
pub const MODULES: &[(&str, &str)] = &[
    ("flush", "memstore flushes"),
    ("compaction", "compactions"),
    ("balancer", "the balancer's runs"),
    ("normalizer", "the region normalizer's plans"),
    ("hbck", "consistency checks and repairs"),
    ("rpc", "calls past the slow-log thresholds"),
    (
        LIBRARIES,
        "what the crates Basalt is built on report (ZooKeeper's client, OpenDAL, hyper)",
    ),
];

/// The module the `log` facade's records are logged under (their target names the crate).
pub const LIBRARIES: &str = "libraries";

/// The level a module starts at.
pub const DEFAULT: Level = Level::Info;

static LEVELS: RwLock<BTreeMap<String, Level>> = RwLock::new(BTreeMap::new());

/// The level `libraries` starts at: what the crates below report at INFO is their own
/// chatter (a ZooKeeper session's every state), not Basalt's news.
pub const LIBRARIES_DEFAULT: Level = Level::Warn;

/// A module's level now.
pub fn level(module: &str) -> Level {
    LEVELS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .get(module)
        .copied()
        .unwrap_or(if module == LIBRARIES {
            LIBRARIES_DEFAULT
        } else {
            DEFAULT
        })
}

/// Sets a module's level; unknown modules are refused by name.
pub fn set_level(module: &str, level: Level) -> Result<(), String> {
    if !MODULES.iter().any(|(m, _)| *m == module) {
        let known: Vec<&str> = MODULES.iter().map(|(m, _)| *m).collect();
        return Err(format!(
            "no module {module:?} logs here (known: {})",
            known.join(", ")
        ));
    }
    LEVELS
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(module.to_owned(), level);
    Ok(())
}

/// Whether `module` logs at `level` now.
pub fn enabled(module: &str, level: Level) -> bool {
    level <= self::level(module)
}

/// Logs `message` (built only if it is logged) for `module` at `level`.
pub fn log(module: &str, level: Level, message: impl FnOnce() -> String) {
    if enabled(module, level) {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr().lock(),
            "{} {module}: {}",
            level.name(),
            message()
        );
    }
}

/// Basalt's log as the `log` facade's logger.
struct Facade;

impl Level {
    fn of(level: ::log::Level) -> Level {
        match level {
            ::log::Level::Error => Level::Error,
            ::log::Level::Warn => Level::Warn,
            ::log::Level::Info => Level::Info,
            ::log::Level::Debug => Level::Debug,
            ::log::Level::Trace => Level::Trace,
        }
    }
}

impl ::log::Log for Facade {
    fn enabled(&self, metadata: &::log::Metadata<'_>) -> bool {
        enabled(LIBRARIES, Level::of(metadata.level()))
    }

    fn log(&self, record: &::log::Record<'_>) {
        let level = Level::of(record.level());
        log(LIBRARIES, level, || {
            format!("{}: {}", record.target(), record.args())
        });
    }

    fn flush(&self) {}
}

/// Makes Basalt's log the `log` facade's logger, so the records of the crates below reach
/// standard error as `LEVEL libraries: target: message`. A second call changes nothing.
pub fn install() {
    static FACADE: Facade = Facade;
    if ::log::set_logger(&FACADE).is_ok() {
        ::log::set_max_level(::log::LevelFilter::Trace);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_change_live_and_unknown_modules_are_refused() {
        assert!(!enabled("hbck", Level::Debug));
        set_level("hbck", Level::Debug).unwrap();
        assert!(enabled("hbck", Level::Debug));
        assert_eq!(level("hbck"), Level::Debug);
        set_level("hbck", Level::parse("warn").unwrap()).unwrap();
        assert!(!enabled("hbck", Level::Info));
        assert!(
            set_level("nope", Level::Debug)
                .unwrap_err()
                .contains("flush")
        );
        assert_eq!(Level::parse("ALL"), Some(Level::Trace));
        assert_eq!(Level::parse("loud"), None);
    }

    #[test]
    fn the_facade_logs_under_libraries_at_its_level() {
        install();
        let debug = ::log::Metadata::builder()
            .level(::log::Level::Debug)
            .target("zookeeper_client")
            .build();
        let info = ::log::Metadata::builder()
            .level(::log::Level::Info)
            .target("zookeeper_client")
            .build();
        assert!(!::log::logger().enabled(&debug));
        assert!(!::log::logger().enabled(&info), "libraries start at WARN");
        set_level(LIBRARIES, Level::Debug).unwrap();
        assert!(::log::logger().enabled(&debug));
        set_level(LIBRARIES, LIBRARIES_DEFAULT).unwrap();
    }
}
