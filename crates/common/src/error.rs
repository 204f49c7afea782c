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
}

/// Every error the engine and the client API return.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
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
    #[error("Storage error: {0}")]
    Storage(String),
    #[error("Corrupt data: {0}")]
    Corrupt(String),
}

impl Error {
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
            Error::Storage(_) => ErrorKind::Io,
            Error::Corrupt(_) => ErrorKind::Corruption,
        }
    }

    /// The simple name of the exception HBase throws for this error, for gateways to send.
    pub fn exception_name(&self) -> &'static str {
        match self {
            Error::NoSuchColumnFamily { .. } => "NoSuchColumnFamilyException",
            Error::TableNotFound(_) => "TableNotFoundException",
            Error::NamespaceNotFound(_) => "NamespaceNotFoundException",
            Error::TableExists(_) => "TableExistsException",
            Error::TableNotEnabled(_) => "TableNotEnabledException",
            Error::TableNotDisabled(_) => "TableNotDisabledException",
            // HBase's HRegion.checkReadOnly throws DoNotRetryIOException.
            Error::TableReadOnly(_) => "DoNotRetryIOException",
            Error::Corrupt(_) => "CorruptHFileException",
            Error::NamespaceExists(_) => "NamespaceExistException",
            Error::NamespaceNotEmpty { .. } => "ConstraintException",
            Error::NotServingRegion(_) => "NotServingRegionException",
            Error::UnknownRegion(_) => "UnknownRegionException",
            Error::RegionTooBusy { .. } => "RegionTooBusyException",
            Error::Refused(_) => "DoNotRetryIOException",
            _ => match self.kind() {
                ErrorKind::InvalidArgument => "IllegalArgumentException",
                _ => "IOException",
            },
        }
    }
}

/// Result type of the engine and client API.
pub type Result<T, E = Error> = std::result::Result<T, E>;
