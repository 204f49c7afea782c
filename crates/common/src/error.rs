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
    #[error("Replication peer {0} does not exist")]
    ReplicationPeerNotFound(String),
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
    /// A namespace's table or region quota would be exceeded (HBase's
    /// QuotaExceededException).
    #[error("{0}")]
    QuotaExceeded(String),
    /// A space quota's policy refuses the write (HBase's SpaceLimitingException): the
    /// message starts with the policy's name.
    #[error("{0}")]
    SpaceLimited(String),
    /// Access control refused the call; the message names the user, the action and the scope,
    /// as HBase's AccessDeniedException does.
    #[error("{0}")]
    AccessDenied(String),
    /// A coprocessor vetoed the operation, failed, or ran over its limits (HBase's
    /// CoprocessorException); the message names the module and says what happened.
    #[error("{0}")]
    Coprocessor(String),
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
            | Error::ReplicationPeerNotFound(_)
            | Error::UnknownRegion(_) => ErrorKind::NotFound,
            Error::TableExists(_) | Error::NamespaceExists(_) => ErrorKind::AlreadyExists,
            Error::TableNotEnabled(_)
            | Error::TableNotDisabled(_)
            | Error::TableReadOnly(_)
            | Error::NamespaceNotEmpty { .. }
            | Error::QuotaExceeded(_)
            | Error::SpaceLimited(_)
            | Error::Coprocessor(_)
            | Error::Refused(_) => ErrorKind::WrongState,
            Error::NotServingRegion(_) | Error::RegionTooBusy { .. } => ErrorKind::Unavailable,
            Error::AccessDenied(_) => ErrorKind::Denied,
            Error::Storage { .. } => ErrorKind::Io,
            Error::Corrupt { .. } => ErrorKind::Corruption,
        }
    }

    /// Which of HBase's exceptions this error is sent as.
    fn exception(&self) -> Exception {
        match self {
            Error::NoSuchColumnFamily { .. } => Exception::NoSuchColumnFamily,
            Error::TableNotFound(_) => Exception::TableNotFound,
            Error::NamespaceNotFound(_) => Exception::NamespaceNotFound,
            Error::ReplicationPeerNotFound(_) => Exception::ReplicationPeerNotFound,
            Error::TableExists(_) => Exception::TableExists,
            Error::TableNotEnabled(_) => Exception::TableNotEnabled,
            Error::TableNotDisabled(_) => Exception::TableNotDisabled,
            // HBase's HRegion.checkReadOnly throws DoNotRetryIOException.
            Error::TableReadOnly(_) | Error::Refused(_) => Exception::DoNotRetry,
            Error::Corrupt { .. } => Exception::CorruptHFile,
            Error::NamespaceExists(_) => Exception::NamespaceExists,
            Error::NamespaceNotEmpty { .. } => Exception::Constraint,
            Error::NotServingRegion(_) => Exception::NotServingRegion,
            Error::UnknownRegion(_) => Exception::UnknownRegion,
            Error::RegionTooBusy { .. } => Exception::RegionTooBusy,
            Error::AccessDenied(_) => Exception::AccessDenied,
            Error::QuotaExceeded(_) => Exception::QuotaExceeded,
            Error::SpaceLimited(_) => Exception::SpaceLimiting,
            Error::Coprocessor(_) => Exception::Coprocessor,
            _ => match self.kind() {
                // HBase's client sees a server-side IllegalArgumentException as this.
                ErrorKind::InvalidArgument => Exception::IllegalArgument,
                _ => Exception::Io,
            },
        }
    }

    /// The Java class of the exception HBase throws for this error: what every gateway sends
    /// (the native RPC whole, Thrift and the shell by its simple name). [`EXCEPTIONS`] is the
    /// one table between errors and HBase's exceptions; [`Error::from_exception`] reads it
    /// the other way.
    pub fn java_class(&self) -> &'static str {
        let wanted = self.exception();
        EXCEPTIONS
            .iter()
            .find(|(e, _)| *e == wanted)
            .map_or("java.io.IOException", |(_, class)| class)
    }

    /// The error a server's exception means, by its Java class (whole or its simple name)
    /// and message, for a call on `table`: the reverse of [`Error::java_class`]. An exception
    /// Basalt has no error for is a storage error naming it.
    pub fn from_exception(class: &str, message: String, table: &TableName) -> Error {
        let simple = simple_name(class);
        let found = EXCEPTIONS
            .iter()
            .find(|(_, c)| simple_name(c) == simple)
            .map(|(e, _)| *e);
        match found {
            // The table the server names (HBase's message is the name itself), where the
            // call was not on it (a peer's config).
            Some(Exception::TableNotFound) => Error::TableNotFound(
                message
                    .strip_prefix("Table ")
                    .and_then(|m| m.strip_suffix(" does not exist"))
                    .or(Some(message.lines().next().unwrap_or_default().trim()))
                    .and_then(|t| TableName::parse(t).ok())
                    .unwrap_or_else(|| table.clone()),
            ),
            Some(Exception::TableNotEnabled) => Error::TableNotEnabled(table.clone()),
            Some(Exception::NoSuchColumnFamily) => {
                let family = message
                    .split("Column family ")
                    .nth(1)
                    .and_then(|rest| rest.split(" does not exist").next())
                    .unwrap_or_default();
                // The server names the table when the call was not on it (a peer's config).
                let named = message
                    .split(" does not exist in table ")
                    .nth(1)
                    .and_then(|t| {
                        TableName::parse(t.lines().next().unwrap_or_default().trim()).ok()
                    });
                Error::NoSuchColumnFamily {
                    table: named.unwrap_or_else(|| table.clone()),
                    family: BinaryDisplay::new(family.as_bytes()),
                }
            }
            Some(Exception::TableExists) => Error::TableExists(table.clone()),
            Some(Exception::TableNotDisabled) => Error::TableNotDisabled(table.clone()),
            Some(Exception::NamespaceNotFound) => Error::NamespaceNotFound(
                message
                    .strip_prefix("Namespace ")
                    .and_then(|m| m.strip_suffix(" does not exist"))
                    .map_or(message.clone(), str::to_owned),
            ),
            Some(Exception::ReplicationPeerNotFound) => Error::ReplicationPeerNotFound(
                message
                    .strip_prefix("Replication peer ")
                    .and_then(|m| m.strip_suffix(" does not exist"))
                    .map_or(message.clone(), str::to_owned),
            ),
            Some(Exception::NamespaceExists) => Error::NamespaceExists(message),
            // The server's message is its error's text, which already says "Invalid argument".
            Some(Exception::DoNotRetry | Exception::IllegalArgument) => Error::InvalidArgument(
                message
                    .strip_prefix("Invalid argument: ")
                    .map_or(message.clone(), str::to_owned),
            ),
            Some(Exception::Constraint) => Error::Refused(message),
            Some(Exception::AccessDenied) => Error::AccessDenied(message),
            Some(Exception::QuotaExceeded) => Error::QuotaExceeded(message),
            Some(Exception::SpaceLimiting) => Error::SpaceLimited(message),
            Some(Exception::Coprocessor) => Error::Coprocessor(message),
            Some(Exception::NotServingRegion) => Error::NotServingRegion(message),
            Some(Exception::UnknownRegion) => Error::UnknownRegion(message),
            Some(Exception::RegionTooBusy) => Error::RegionTooBusy {
                region: String::new(),
                reason: message,
            },
            Some(Exception::CorruptHFile) => {
                let (message, source) = RemoteException::split(&message);
                Error::Corrupt { message, source }
            }
            Some(Exception::Io) | None => {
                let (message, source) = RemoteException::split(&message);
                Error::Storage {
                    message: format!("{class}: {message}"),
                    source,
                }
            }
        }
    }

    /// The simple name of [`Error::java_class`] (`TableNotFoundException`).
    pub fn exception_name(&self) -> &'static str {
        simple_name(self.java_class())
    }
}

/// How a stack trace names a cause: a line starting so, then the cause's class and message.
pub const CAUSED_BY: &str = "Caused by: ";

/// The class a Basalt server gives a cause that was a Rust error (an I/O error, a decoder's).
pub const RUST_CAUSE: &str = "java.io.IOException";

/// A cause of an exception a server sent, read from its stack trace's `Caused by:` lines:
/// its class and message, and its own cause. An error made from a server's exception
/// ([`Error::from_exception`]) has the first as its `source()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteException {
    /// The cause's Java class.
    pub class: String,
    /// Its message.
    pub message: String,
    cause: Option<Box<RemoteException>>,
}

impl RemoteException {
    /// A stack trace's own message (its lines up to the first cause), and its causes.
    fn split(trace: &str) -> (String, Option<Cause>) {
        let separator = format!("\n{CAUSED_BY}");
        let mut parts = trace.split(separator.as_str());
        let message = parts.next().unwrap_or_default().to_owned();
        let causes: Vec<RemoteException> = parts
            .map(|part| {
                // A Java trace's frames (`\tat ...`) follow the cause's first line.
                let line = part.lines().next().unwrap_or_default();
                let (class, message) = line.split_once(": ").unwrap_or((line, ""));
                RemoteException {
                    class: class.to_owned(),
                    message: message.to_owned(),
                    cause: None,
                }
            })
            .collect();
        let chain = causes.into_iter().rev().fold(None, |inner, mut outer| {
            outer.cause = inner.map(Box::new);
            Some(outer)
        });
        (message, chain.map(Cause::new))
    }
}

impl std::fmt::Display for RemoteException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.class, self.message)
    }
}

impl std::error::Error for RemoteException {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_deref().map(|c| c as _)
    }
}

/// A Java class's simple name: what follows its last dot.
fn simple_name(class: &str) -> &str {
    class.rsplit('.').next().unwrap_or(class)
}

/// The HBase exceptions Basalt's errors are sent as, and read back from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exception {
    NoSuchColumnFamily,
    TableNotFound,
    NamespaceNotFound,
    ReplicationPeerNotFound,
    TableExists,
    TableNotEnabled,
    TableNotDisabled,
    DoNotRetry,
    CorruptHFile,
    NamespaceExists,
    Constraint,
    NotServingRegion,
    UnknownRegion,
    RegionTooBusy,
    AccessDenied,
    QuotaExceeded,
    SpaceLimiting,
    Coprocessor,
    IllegalArgument,
    Io,
}

/// Each exception's Java class: the one table between Basalt's errors and HBase's exception
/// classes, read by [`Error::java_class`] one way and [`Error::from_exception`] the other.
const EXCEPTIONS: &[(Exception, &str)] = &[
    (
        Exception::QuotaExceeded,
        "org.apache.hadoop.hbase.quotas.QuotaExceededException",
    ),
    (
        Exception::SpaceLimiting,
        "org.apache.hadoop.hbase.quotas.SpaceLimitingException",
    ),
    (
        Exception::NoSuchColumnFamily,
        "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
    ),
    (
        Exception::TableNotFound,
        "org.apache.hadoop.hbase.TableNotFoundException",
    ),
    (
        Exception::NamespaceNotFound,
        "org.apache.hadoop.hbase.NamespaceNotFoundException",
    ),
    (
        Exception::ReplicationPeerNotFound,
        "org.apache.hadoop.hbase.replication.ReplicationPeerNotFoundException",
    ),
    (
        Exception::TableExists,
        "org.apache.hadoop.hbase.TableExistsException",
    ),
    (
        Exception::TableNotEnabled,
        "org.apache.hadoop.hbase.TableNotEnabledException",
    ),
    (
        Exception::TableNotDisabled,
        "org.apache.hadoop.hbase.TableNotDisabledException",
    ),
    (
        Exception::DoNotRetry,
        "org.apache.hadoop.hbase.DoNotRetryIOException",
    ),
    (
        Exception::CorruptHFile,
        "org.apache.hadoop.hbase.io.hfile.CorruptHFileException",
    ),
    (
        Exception::NamespaceExists,
        "org.apache.hadoop.hbase.NamespaceExistException",
    ),
    (
        Exception::Constraint,
        "org.apache.hadoop.hbase.constraint.ConstraintException",
    ),
    (
        Exception::NotServingRegion,
        "org.apache.hadoop.hbase.NotServingRegionException",
    ),
    (
        Exception::UnknownRegion,
        "org.apache.hadoop.hbase.UnknownRegionException",
    ),
    (
        Exception::RegionTooBusy,
        "org.apache.hadoop.hbase.RegionTooBusyException",
    ),
    (
        Exception::AccessDenied,
        "org.apache.hadoop.hbase.security.AccessDeniedException",
    ),
    (
        Exception::Coprocessor,
        "org.apache.hadoop.hbase.coprocessor.CoprocessorException",
    ),
    (
        Exception::IllegalArgument,
        "java.lang.IllegalArgumentException",
    ),
    (Exception::Io, "java.io.IOException"),
];

/// Result type of the engine and client API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn a_servers_causes_become_the_sources_of_its_error() {
        let table = TableName::parse("t").unwrap();
        let trace = "flushing: disk\nCaused by: java.io.IOException: disk\n\tat a.b(C.java:1)\nCaused by: java.io.IOException: ENOSPC";
        let e = Error::from_exception("java.io.IOException", trace.into(), &table);
        assert_eq!(
            e.to_string(),
            "Storage error: java.io.IOException: flushing: disk"
        );
        let first = e.source().unwrap();
        assert_eq!(first.to_string(), "java.io.IOException: disk");
        let second = first.source().unwrap();
        assert_eq!(second.to_string(), "java.io.IOException: ENOSPC");
        assert!(second.source().is_none());
        // Without causes, nothing changes.
        let plain = Error::from_exception("java.io.IOException", "boom".into(), &table);
        assert!(plain.source().is_none());
        assert_eq!(
            plain.to_string(),
            "Storage error: java.io.IOException: boom"
        );
    }

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

    /// Every error sent as an exception reads back as the same kind of error, by its whole
    /// class or its simple name; the messages a server sends carry what the variants hold.
    /// (DoNotRetryIOException, which HBase throws for many things, reads back as an invalid
    /// argument: a read-only table's refusal comes back as that.)
    #[test]
    fn errors_read_back_from_their_exceptions() {
        let table = TableName::parse("t").expect("name");
        let errors = [
            Error::NoSuchColumnFamily {
                table: table.clone(),
                family: BinaryDisplay::new(b"cf"),
            },
            Error::TableNotFound(table.clone()),
            Error::NamespaceNotFound("ns".into()),
            Error::TableExists(table.clone()),
            Error::TableNotEnabled(table.clone()),
            Error::TableNotDisabled(table.clone()),
            Error::InvalidArgument("bad".into()),
            Error::corrupt("bad block"),
            Error::NamespaceExists("ns".into()),
            Error::NamespaceNotEmpty {
                namespace: "ns".into(),
                tables: 1,
            },
            Error::NotServingRegion("r".into()),
            Error::UnknownRegion("r".into()),
            Error::AccessDenied("no".into()),
            Error::storage("disk"),
        ];
        for e in errors {
            let class = e.java_class();
            for name in [class, simple_name(class)] {
                let back = Error::from_exception(name, e.to_string(), &table);
                assert_eq!(back.kind(), e.kind(), "{e} as {name}: {back}");
            }
        }
        let cf = Error::from_exception(
            "NoSuchColumnFamilyException",
            "Column family cf does not exist in region x".into(),
            &table,
        );
        assert_eq!(cf.to_string(), "Column family cf does not exist in table t");
        let other = Error::from_exception("org.example.Odd", "odd".into(), &table);
        assert_eq!(other.kind(), ErrorKind::Io);
        assert!(other.to_string().contains("org.example.Odd: odd"));
        assert!(
            EXCEPTIONS
                .iter()
                .all(|(e, _)| { EXCEPTIONS.iter().filter(|(o, _)| o == e).count() == 1 })
        );
    }
}
