//! The master (HBase's `HMaster`): the catalog (`hbase:meta`, its rows and the files beside
//! it), the tables and namespaces it knows, DDL and the catalog half of splits and merges
//! (`procedures`, HBase's procedures and CatalogJanitor), opening a data directory (recovery
//! of gone servers' logs, the upgrade of older layouts, `boot`), the background thread that
//! splits what its region server says grew too big and cleans parents (`janitor`), and the
//! interface through which it asks region servers for region work (`servers`). The embedded
//! engine (`Engine`) is a master and one region server in one process; `basalt-client`'s
//! `Connection` is a handle on it.

pub mod access_service;
pub mod acl_store;
mod admin;
pub mod balancer;
pub mod cluster;
pub mod janitor;
mod master;
pub mod master_service;
pub mod meta;
pub mod procedures;
pub mod servers;
pub mod snapshots;
pub mod upgrade;

pub use admin::{Admin, RegionDescription, SplitAlgorithm};
pub use master::{HostedTable, Master, Placed, Servers};
