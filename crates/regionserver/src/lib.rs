//! The region server (HBase's `HRegionServer`): the regions it has online, by encoded name;
//! what they share (its write-ahead log in `WALs/<server>/`, the block cache, the memstore
//! budget and the flushers that keep to it); the compactor and the split check
//! (`compactor`); opening and closing regions for the master and the region half of splits and
//! merges (`transitions`); and recovery of a gone server's log. The data directory's layout, which the master shares, is
//! here too, and the region server's native-RPC services (HBase's `RSRpcServices`):
//! ClientService (`client_service`, data calls) and AdminService (`admin_service`), run on
//! the online regions. The embedded engine (`basalt-master`)
//! runs one region server next to its master; `basalt-rpc`'s server carries its calls.

pub mod admin_service;
pub mod client_service;
pub mod cluster;
pub mod compactor;
pub mod flusher;
/// The data directory's layout (its own crate, which the master uses too).
pub use basalt_layout as layout;
pub use basalt_layout::meta_schema;
pub mod nonces;
pub mod process;
pub mod quotas;
mod recovery;
pub mod replication;
mod server;
pub mod standing;
pub mod status;
mod transitions;
pub mod wal_dirs;

pub use recovery::{RECOVERED_EDITS, recover, replay_recovered_edits, split_log};
pub use server::{META_REGION_NAME, PreparedSplit, RegionServer};
