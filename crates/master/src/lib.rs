//! The master (HBase's `HMaster`): the catalog (`hbase:meta`, its rows and the files beside
//! it), the tables and namespaces it knows, DDL and the catalog half of splits and merges
//! (`procedures`, HBase's procedures and CatalogJanitor), the upgrade of older layouts, what
//! its background work does (`janitor`: the embedded engine runs it on a thread in
//! `basalt-embedded`, a cluster's master in `cluster`'s loop), and the interface through which
//! it asks region servers for region work (`servers`).
//!
//! Its modules stand in layers, each using only those below (`tests/layers.rs` holds them to
//! it): `meta` and `servers` at the bottom, the state (`master`), `balancer`, `procedures`,
//! what is built of procedures (`acl_store`, `snapshots`, `peers`), the services (`admin`,
//! `master_service`, `master_admin`), and the cluster master (`cluster`) on top.

pub mod acl_store;
mod admin;
pub mod balancer;
pub mod chores;
pub mod cluster;
pub mod hbck;
pub mod hbck_service;
pub mod janitor;
mod master;
pub mod master_admin;
pub mod master_service;
pub mod meta;
pub mod normalizer;
pub mod peers;
pub mod procedure_log;
pub mod procedures;
pub mod quota_store;
pub mod rsgroup;
pub mod rsgroup_admin;
pub mod servers;
pub mod snapshots;
pub mod upgrade;

pub use admin::{Admin, RegionDescription, SplitAlgorithm};
pub use master::{HostedTable, Master, Placed, Servers};
