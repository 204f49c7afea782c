//! Snapshots: taking one needs ADMIN on its table; deleting, cloning and restoring, global
//! ADMIN (HBase's AccessController); listing them is open to all.

use basalt_common::acl::{Action, Scope};
use basalt_common::{Result, TableName};
use basalt_proto::pb;

use crate::declare::operations;
use crate::{Need, need};

/// ADMIN on the table a snapshot is taken of.
fn snapshot_need(r: &pb::SnapshotRequest) -> Result<Option<Need>> {
    let table = TableName::parse(r.snapshot.table.as_deref().unwrap_or_default())?;
    Ok(Some(Need {
        actions: vec![Action::Admin],
        scope: Scope::table(&table),
    }))
}

operations! {
    /// Snapshots.
    area Snapshots, handler SnapshotHandler;
    /// Takes a snapshot of a table (done before the answer).
    Snapshot(pb::SnapshotRequest) -> pb::SnapshotResponse = snapshot, need snapshot_need;
    /// Whether a snapshot is taken, and its description.
    IsSnapshotDone(pb::IsSnapshotDoneRequest) -> pb::IsSnapshotDoneResponse
        = is_snapshot_done, need need::anyone;
    /// Every snapshot taken.
    GetCompletedSnapshots(pb::GetCompletedSnapshotsRequest) -> pb::GetCompletedSnapshotsResponse
        = get_completed_snapshots, need need::anyone;
    /// A new table from a snapshot.
    CloneSnapshot(pb::CloneSnapshotRequest) -> pb::CloneSnapshotResponse = clone_snapshot,
        need need::admin, nonce;
    /// A disabled table back to a snapshot.
    RestoreSnapshot(pb::RestoreSnapshotRequest) -> pb::RestoreSnapshotResponse
        = restore_snapshot, need need::admin, nonce;
    /// Drops a snapshot.
    DeleteSnapshot(pb::DeleteSnapshotRequest) -> pb::DeleteSnapshotResponse = delete_snapshot,
        need need::admin;
}
