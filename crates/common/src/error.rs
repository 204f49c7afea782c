//! Basalt's errors: one enum whose variants carry their context, and a small [`ErrorKind`]
//! that gateways translate into HBase's exception names.

use crate::bytes_display::BinaryDisplay;
use crate::table_name::TableName;

/// What went wrong, in the few categories a caller can act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The request itself is malformed (empty row, bad name, negative timestamp, ...).
    InvalidArgument,
    /// A table, family or other named thing does not exist.
    NotFound,
    /// Something with that name already exists.
    AlreadyExists,
    /// The table is in the wrong state for the operation (enabled / disabled).
    WrongState,
    /// Stored data failed a check (checksum, format): it is damaged.
    Corruption,
    /// The storage failed (I/O error).
    Io,
    /// The region or server cannot take the request now (moving, splitting, too busy); the
    /// same request may succeed when retried.
    Unavailable,
    /// The caller may not do this (access control).
    Denied,
}

/// Every error the engine and the client API return.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("Row length is 0")]
    EmptyRow,
    #[error("Row length {len} is > {max}")]
    RowTooLong { len: usize, max: usize },
    #[error("Timestamp cannot be negative, got {0}")]
    NegativeTimestamp(i64),
    #[error("Cell with size {size} exceeds limit of {limit} bytes (row {row})")]
    CellTooLarge {
        row: BinaryDisplay,
        size: usize,
        limit: usize,
    },
    #[error("Illegal column family name {name}: {reason}")]
    InvalidFamilyName {
        name: BinaryDisplay,
        reason: &'static str,
    },
    #[error("Illegal table name {name}: {reason}")]
    InvalidTableName { name: String, reason: String },
    #[error("Invalid descriptor for {what}: {reason}")]
    InvalidDescriptor { what: String, reason: String },
    #[error("Invalid argument: {0}")]
    InvalidArgument(String),
    #[error("Column family {family} does not exist in table {table}")]
    NoSuchColumnFamily {
        table: TableName,
        family: BinaryDisplay,
    },
    #[error("Namespace {0} does not exist")]
    NamespaceNotFound(String),
    #[error("Table {0} does not exist")]
    TableNotFound(TableName),
    #[error("Table {0} already exists")]
    TableExists(TableName),
    #[error("Table {0} is disabled")]
    TableNotEnabled(TableName),
    #[error("Table {0} is not disabled")]
    TableNotDisabled(TableName),
    #[error("Table {0} is read only")]
    TableReadOnly(TableName),
    #[error("Namespace {0} already exists")]
    NamespaceExists(String),
    #[error("Only empty namespaces can be removed. Namespace {namespace} has {tables} tables")]
    NamespaceNotEmpty { namespace: String, tables: usize },
    #[error("Region {0} is not online")]
    NotServingRegion(String),
    #[error("Region {0} is not known")]
    UnknownRegion(String),
    #[error("Region {region} is too busy: {reason}")]
    RegionTooBusy { region: String, reason: String },
    #[error("{0}")]
    Refused(String),
    /// Access control refused the call; the message names the user, the action and the scope,
    /// as HBase's AccessDeniedException does.
    #[error("{0}")]
    AccessDenied(String),
    /// The storage failed; `source` is the error from below, where there was one.
    #[error("Storage error: {message}")]
    Storage {
        message: String,
        #[source]
        source: Option<Cause>,
    },
    /// Stored or received data failed a check; `source` is the decoder's error, if any.
    #[error("Corrupt data: {message}")]
    Corrupt {
        message: String,
        #[source]
        source: Option<Cause>,
    },
}

/// The error from below that a storage or corruption error wraps (an I/O error, a file
/// system's, a decoder's), kept for [`std::error::Error::source`]. Shared, so errors stay
/// cheap to clone; two are equal when they say the same.
#[derive(Debug, Clone)]
pub struct Cause(std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(std::sync::Arc::new(e))
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        self.0.to_string() == other.0.to_string()
    }
}

impl Eq for Cause {}

impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl Error {
    /// A storage failure described by `message` alone.
    pub fn storage(message: impl Into<String>) -> Error {
        Error::Storage {
            message: message.into(),
            source: None,
        }
    }

    /// A storage failure caused by `e`, which it reports as its source.
    pub fn storage_from(e: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Storage {
            message: e.to_string(),
            source: Some(Cause::new(e)),
        }
    }

    /// A storage failure caused by `e`, while doing what `context` says.
    pub fn storage_in(
        context: impl std::fmt::Display,
        e: impl std::error::Error + Send + Sync + 'static,
    ) -> Error {
        Error::Storage {
            message: format!("{context}: {e}"),
            source: Some(Cause::new(e)),
        }
    }

    /// Damaged data described by `message` alone.
    pub fn corrupt(message: impl Into<String>) -> Error {
        Error::Corrupt {
            message: message.into(),
            source: None,
        }
    }

    /// Damaged data found by `e` (a decoder's or reader's error), its source.
    pub fn corrupt_from(e: impl std::error::Error + Send + Sync + 'static) -> Error {
        Error::Corrupt {
            message: e.to_string(),
            source: Some(Cause::new(e)),
        }
    }

    /// The category of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::EmptyRow
            | Error::RowTooLong { .. }
            | Error::NegativeTimestamp(_)
            | Error::CellTooLarge { .. }
            | Error::InvalidFamilyName { .. }
            | Error::InvalidTableName { .. }
            | Error::InvalidDescriptor { .. }
            | Error::InvalidArgument(_) => ErrorKind::InvalidArgument,
            Error::NoSuchColumnFamily { .. }
            | Error::TableNotFound(_)
            | Error::NamespaceNotFound(_)
            | Error::UnknownRegion(_) => ErrorKind::NotFound,
            Error::TableExists(_) | Error::NamespaceExists(_) => ErrorKind::AlreadyExists,
            Error::TableNotEnabled(_)
            | Error::TableNotDisabled(_)
            | Error::TableReadOnly(_)
            | Error::NamespaceNotEmpty { .. }
            | Error::Refused(_) => ErrorKind::WrongState,
            Error::NotServingRegion(_) | Error::RegionTooBusy { .. } => ErrorKind::Unavailable,
            Error::AccessDenied(_) => ErrorKind::Denied,
            Error::Storage { .. } => ErrorKind::Io,
            Error::Corrupt { .. } => ErrorKind::Corruption,
        }
    }

    /// The Java class of the exception HBase throws for this error: what every gateway sends
    /// (the native RPC whole, Thrift and the shell by its simple name). The one place errors
    /// map to HBase's exceptions.
    pub fn java_class(&self) -> &'static str {
        match self {
            Error::NoSuchColumnFamily { .. } => {
                "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"
            }
            Error::TableNotFound(_) => "org.apache.hadoop.hbase.TableNotFoundException",
            Error::NamespaceNotFound(_) => "org.apache.hadoop.hbase.NamespaceNotFoundException",
            Error::TableExists(_) => "org.apache.hadoop.hbase.TableExistsException",
            Error::TableNotEnabled(_) => "org.apache.hadoop.hbase.TableNotEnabledException",
            Error::TableNotDisabled(_) => "org.apache.hadoop.hbase.TableNotDisabledException",
            // HBase's HRegion.checkReadOnly throws DoNotRetryIOException.
            Error::TableReadOnly(_) | Error::Refused(_) => {
                "org.apache.hadoop.hbase.DoNotRetryIOException"
            }
            Error::Corrupt { .. } => "org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
            Error::NamespaceExists(_) => "org.apache.hadoop.hbase.NamespaceExistException",
            Error::NamespaceNotEmpty { .. } => {
                "org.apache.hadoop.hbase.constraint.ConstraintException"
            }
            Error::NotServingRegion(_) => "org.apache.hadoop.hbase.NotServingRegionException",
            Error::UnknownRegion(_) => "org.apache.hadoop.hbase.UnknownRegionException",
            Error::RegionTooBusy { .. } => "org.apache.hadoop.hbase.RegionTooBusyException",
            Error::AccessDenied(_) => "org.apache.hadoop.hbase.security.AccessDeniedException",
            _ => match self.kind() {
                // HBase's client sees a server-side IllegalArgumentException as this.
                ErrorKind::InvalidArgument => "java.lang.IllegalArgumentException",
                _ => "java.io.IOException",
            },
        }
    }

    /// The simple name of [`Error::java_class`] (`TableNotFoundException`).
    pub fn exception_name(&self) -> &'static str {
        let class = self.java_class();
        class.rsplit('.').next().unwrap_or(class)
    }
}

/// Result type of the engine and client API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn storage_and_corruption_errors_keep_their_cause() {
        let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "no entry");
        let e = Error::storage_in("opening /data/x", io);
        assert_eq!(e.to_string(), "Storage error: opening /data/x: no entry");
        let cause = e.source().expect("a source");
        assert_eq!(cause.to_string(), "no entry");
        assert_eq!(e.kind(), ErrorKind::Io);
        assert!(Error::storage("closed").source().is_none());
        let bad = Error::corrupt_from(std::fmt::Error);
        assert!(bad.source().is_some());
        assert_eq!(bad.kind(), ErrorKind::Corruption);
        // Clones compare equal, and so do errors saying the same.
        assert_eq!(bad.clone(), bad);
    }

    #[test]
    fn every_error_has_one_hbase_exception() {
        let table = TableName::parse("t").expect("name");
        for (e, class) in [
            (
                Error::TableNotFound(table.clone()),
                "org.apache.hadoop.hbase.TableNotFoundException",
            ),
            (
                Error::NotServingRegion("r".into()),
                "org.apache.hadoop.hbase.NotServingRegionException",
            ),
            (Error::EmptyRow, "java.lang.IllegalArgumentException"),
            (Error::storage("x"), "java.io.IOException"),
            (
                Error::corrupt("x"),
                "org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
            ),
        ] {
            assert_eq!(e.java_class(), class);
            assert_eq!(Some(e.exception_name()), class.rsplit('.').next());
        }
    }
}
