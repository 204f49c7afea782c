//! Snapshots: taking one needs ADMIN on its table; deleting, cloning and restoring, global
//! ADMIN (HBase's AccessController); listing them is open to all.

use basalt_common::acl::{Action, Scope};
use basalt_common::snapshot::SnapshotInfo;
use basalt_common::{Error, Result, TableName};
use basalt_proto::pb;

use crate::declare::{calls, operations};
use crate::{Changed, Need, need};

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

/// A `SnapshotDescription` naming snapshot `name` (of `table`), as a request carries it.
fn description(name: &str, table: Option<&TableName>) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: name.to_owned(),
        table: table.map(ToString::to_string),
        r#type: Some(pb::snapshot_description::Type::Flush as i32),
        ..pb::SnapshotDescription::default()
    }
}

calls! {
    /// Snapshots.
    SnapshotAdmin, AsyncSnapshotAdmin;

    /// Takes snapshot `name` of `table`.
    async fn snapshot(c, name: &str, table: &TableName) -> Result<()> {
        snapshot_with_ttl(c, name, table, 0).await
    }

    /// Takes snapshot `name` of `table` to live `ttl_secs` seconds (0: for ever).
    async fn snapshot_with_ttl(c, name: &str, table: &TableName, ttl_secs: i64) -> Result<()> {
        let mut snapshot = description(name, Some(table));
        snapshot.ttl = (ttl_secs != 0).then_some(ttl_secs);
        c.call::<Snapshot>(Some(table), pb::SnapshotRequest { snapshot }).await?;
        Ok(())
    }

    /// Every snapshot.
    async fn list_snapshots(c) -> Result<Vec<SnapshotInfo>> {
        let r = c
            .call::<GetCompletedSnapshots>(None, pb::GetCompletedSnapshotsRequest {})
            .await?;
        r.snapshots
            .into_iter()
            .map(|s| {
                Ok(SnapshotInfo {
                    table: TableName::parse(s.table.as_deref().unwrap_or_default())?,
                    creation_time: s.creation_time.unwrap_or(0),
                    ttl_secs: s.ttl.unwrap_or(0).max(0),
                    name: s.name,
                })
            })
            .collect()
    }

    /// Makes table `table` from snapshot `name`.
    async fn clone_snapshot(c, name: &str, table: &TableName) -> Result<()> {
        let request = pb::CloneSnapshotRequest {
            snapshot: description(name, Some(table)),
            ..pb::CloneSnapshotRequest::default()
        };
        c.call::<CloneSnapshot>(Some(table), request).await?;
        c.changed(Changed::Table(table));
        Ok(())
    }

    /// Puts snapshot `name`'s table back as it was; the table must be disabled, or gone
    /// (then it is cloned).
    async fn restore_snapshot(c, name: &str) -> Result<()> {
        let table = list_snapshots(c)
            .await?
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.table)
            .ok_or_else(|| Error::InvalidArgument(format!("no snapshot named {name}")))?;
        let request = pb::RestoreSnapshotRequest {
            snapshot: description(name, Some(&table)),
            ..pb::RestoreSnapshotRequest::default()
        };
        c.call::<RestoreSnapshot>(Some(&table), request).await?;
        c.changed(Changed::Table(&table));
        Ok(())
    }

    /// Deletes snapshot `name`.
    async fn delete_snapshot(c, name: &str) -> Result<()> {
        let request = pb::DeleteSnapshotRequest {
            snapshot: description(name, None),
        };
        c.call::<DeleteSnapshot>(None, request).await?;
        Ok(())
    }
}
