//! What the master's background work does: splits of the regions its region servers say grew
//! past their split size, and the cleaning of split and merge parents (HBase's
//! `CatalogJanitor`). The embedded engine runs it on a thread of its own
//! (`basalt-embedded`'s `janitor`), a cluster's master in its loop (`cluster`).

/// What the master's background work does besides cleaning parents.
#[derive(Debug, Clone)]
pub struct Settings {
    pub auto_split: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { auto_split: true }
    }
}
