//! Basalt's administration calls, each declared once (DESIGN §9, "operations as data").
//!
//! Every MasterService operation Basalt serves is one line of an area's table (`tables`,
//! `namespaces`, `replication`, ...): its RPC name, its request and response messages, the
//! handler the master runs, the permission it needs and whether it carries a nonce. From those
//! tables come
//!
//! - [`MasterRequest`] and [`MasterResponse`], every request and answer, decoded once from the
//!   wire ([`MasterRequest::decode`]) or built in the process;
//! - [`MasterHandler`], the trait the master implements, one method per operation;
//! - [`MasterRequest::need`] and [`MasterRequest::nonce`], the access check and the retry
//!   key, for the RPC service and for in-process callers checked as a user;
//! - the typed calls (`create_table`, `delete_namespace`, ...), written once over a connection's one
//!   primitive ([`Caller`] blocking, [`AsyncCaller`] on a runtime), so the remote client, the
//!   embedded engine and every wrapper get them all.
//!
//! What it is not: a transport (the client and the servers carry the bytes), nor the master
//! (it only names the handlers the master writes). See `docs/design/admin-operations.md`.

mod call;
mod declare;
mod master;
mod need;

pub mod chores;
pub mod cluster;
pub mod namespaces;
pub mod quotas;
pub mod regions;
pub mod replication;
pub mod rsgroups;
pub mod security;
pub mod snapshots;
pub mod tables;

pub use call::{AsyncCaller, Caller, Changed, Now, ready};
pub use master::{MasterHandler, MasterRequest, MasterResponse};
pub use need::Need;

/// One operation of a service: its RPC name and messages, and how it is carried in the
/// service's request and response (each declared operation is a unit type implementing it).
pub trait Operation {
    type Request: prost::Message + Default + Send + 'static;
    type Response: prost::Message + Default + Send + 'static;
    /// The RPC method name.
    const NAME: &'static str;
    fn request(r: Self::Request) -> MasterRequest;
    fn response(r: MasterResponse) -> Option<Self::Response>;
    /// Its answer as the service's.
    fn response_of(r: Self::Response) -> MasterResponse;
}

/// Every typed administration call: `use basalt_ops::prelude::*` where a concrete connection
/// (not a `dyn Client`) calls them.
pub mod prelude {
    pub use crate::chores::{AsyncChoreAdmin, ChoreAdmin};
    pub use crate::cluster::{AsyncClusterAdmin, ClusterAdmin};
    pub use crate::namespaces::{AsyncNamespaceAdmin, NamespaceAdmin};
    pub use crate::quotas::{AsyncQuotaAdmin, QuotaAdmin};
    pub use crate::regions::{AsyncRegionAdmin, RegionAdmin};
    pub use crate::replication::{AsyncReplicationAdmin, ReplicationAdmin};
    pub use crate::rsgroups::{AsyncRsGroupAdmin, RsGroupAdmin};
    pub use crate::security::{AsyncSecurityAdmin, SecurityAdmin};
    pub use crate::snapshots::{AsyncSnapshotAdmin, SnapshotAdmin};
    pub use crate::tables::{AsyncTableAdmin, TableAdmin};
}

/// Every blocking typed call, on any [`Caller`].
pub trait Admin:
    Caller
    + chores::ChoreAdmin
    + namespaces::NamespaceAdmin
    + quotas::QuotaAdmin
    + regions::RegionAdmin
    + replication::ReplicationAdmin
    + rsgroups::RsGroupAdmin
    + security::SecurityAdmin
    + cluster::ClusterAdmin
    + snapshots::SnapshotAdmin
    + tables::TableAdmin
{
}

impl<T: Caller + ?Sized> Admin for T {}

/// Every async typed call, on any [`AsyncCaller`].
pub trait AsyncAdmin:
    AsyncCaller
    + chores::AsyncChoreAdmin
    + namespaces::AsyncNamespaceAdmin
    + quotas::AsyncQuotaAdmin
    + regions::AsyncRegionAdmin
    + replication::AsyncReplicationAdmin
    + rsgroups::AsyncRsGroupAdmin
    + security::AsyncSecurityAdmin
    + cluster::AsyncClusterAdmin
    + snapshots::AsyncSnapshotAdmin
    + tables::AsyncTableAdmin
{
}

impl<T: AsyncCaller + ?Sized> AsyncAdmin for T {}
