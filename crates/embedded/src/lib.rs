//! Basalt's engine inside the calling process: [`Connection`], [`Admin`] and [`Table`], with
//! the operation types of `basalt-common` ([`Put`], [`Delete`], [`Get`], [`Scan`],
//! [`RowResult`]). A [`Connection`] implements `basalt-client`'s [`Client`], as a connection
//! to a server does, so tools written against [`Client`] work either way; everything
//! `basalt-client` exports is exported here too.
//!
//! ```
//! use basalt_embedded::{Connection, ColumnFamilyDescriptor, TableDescriptor, Put, Get};
//!
//! let conn = Connection::in_memory();
//! let desc = TableDescriptor::named("t")?.with_family(ColumnFamilyDescriptor::new("cf"));
//! conn.admin().create_table(desc)?;
//! let table = conn.table("t")?;
//! table.put(&Put::new("row1").add_column("cf", "q", "value1"))?;
//! let row = table.get(&Get::new("row1"))?;
//! assert_eq!(row.value(b"cf", b"q").map(|v| &v[..]), Some(&b"value1"[..]));
//! # Ok::<(), basalt_embedded::Error>(())
//! ```

mod as_user;
mod client_impl;
mod connection;
mod engine;
mod janitor;
mod rpc;
#[cfg(test)]
mod split_halves_tests;
mod table;

pub use basalt_client::*;

pub use as_user::AsUser;
pub use basalt_master::{Admin, RegionDescription};
pub use basalt_storefile::BlockCacheStats;
pub use basalt_wal::WalConfig;
pub use connection::{Connection, ConnectionBuilder};
pub use engine::{Engine, EngineBuilder, FromEngine};
pub use table::{ResultScanner, Table};
