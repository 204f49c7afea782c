//! Snapshots, as MasterService serves them: each is taken, cloned or restored before the
//! answer.

use basalt_common::{Result, TableName};
use basalt_ops::snapshots::SnapshotHandler;
use basalt_proto::pb;

use super::{MasterService, refusals};

impl SnapshotHandler for MasterService {
    fn snapshot(&self, r: pb::SnapshotRequest) -> Result<pb::SnapshotResponse> {
        refusals::check_snapshot(&r.snapshot)?;
        let table = TableName::parse(r.snapshot.table.as_deref().unwrap_or_default())?;
        self.admin()
            .snapshot_with_ttl(&r.snapshot.name, &table, r.snapshot.ttl.unwrap_or(0))?;
        // Taken before this answer: nothing to wait for.
        Ok(pb::SnapshotResponse {
            expected_timeout: 0,
        })
    }

    fn is_snapshot_done(&self, r: pb::IsSnapshotDoneRequest) -> Result<pb::IsSnapshotDoneResponse> {
        let name = r.snapshot.map(|s| s.name).unwrap_or_default();
        let found = self
            .admin()
            .list_snapshots()?
            .into_iter()
            .find(|s| s.name == name);
        Ok(pb::IsSnapshotDoneResponse {
            done: Some(found.is_some()),
            snapshot: found.as_ref().map(crate::snapshots::description),
        })
    }

    fn get_completed_snapshots(
        &self,
        _: pb::GetCompletedSnapshotsRequest,
    ) -> Result<pb::GetCompletedSnapshotsResponse> {
        let found = self.admin().list_snapshots()?;
        Ok(pb::GetCompletedSnapshotsResponse {
            snapshots: found.iter().map(crate::snapshots::description).collect(),
        })
    }

    fn clone_snapshot(&self, r: pb::CloneSnapshotRequest) -> Result<pb::CloneSnapshotResponse> {
        refusals::check_restore("CloneSnapshotRequest", r.restore_acl(), None)?;
        let table = TableName::parse(r.snapshot.table.as_deref().unwrap_or_default())?;
        self.admin().clone_snapshot(&r.snapshot.name, &table)?;
        // Done before the answer: a procedure GetProcedureResult calls finished.
        Ok(pb::CloneSnapshotResponse {
            proc_id: self.procedure(),
        })
    }

    fn restore_snapshot(
        &self,
        r: pb::RestoreSnapshotRequest,
    ) -> Result<pb::RestoreSnapshotResponse> {
        refusals::check_restore(
            "RestoreSnapshotRequest",
            r.restore_acl(),
            r.custom_sft.as_deref(),
        )?;
        // HBase's client sends its cloneSnapshot as a RestoreSnapshot naming the new table
        // (`snapshot.table`): a table that does not exist is a clone, as HBase's master
        // decides; an existing one other than the snapshot's own is refused.
        let admin = self.admin();
        let target = r
            .snapshot
            .table
            .as_deref()
            .filter(|t| !t.is_empty())
            .map(TableName::parse)
            .transpose()?;
        let source = admin
            .list_snapshots()?
            .into_iter()
            .find(|s| s.name == r.snapshot.name)
            .map(|s| s.table);
        match target {
            Some(t) if !admin.table_exists(&t) => admin.clone_snapshot(&r.snapshot.name, &t)?,
            Some(t) if source.as_ref().is_some_and(|s| *s != t) => {
                return Err(basalt_common::Error::InvalidArgument(format!(
                    "{t}: snapshot {} is of table {}; it restores only onto that table or \
                     clones into a new one",
                    r.snapshot.name,
                    source.map(|s| s.to_string()).unwrap_or_default()
                )));
            }
            _ => admin.restore_snapshot(&r.snapshot.name)?,
        }
        Ok(pb::RestoreSnapshotResponse {
            proc_id: self.procedure(),
        })
    }

    fn delete_snapshot(&self, r: pb::DeleteSnapshotRequest) -> Result<pb::DeleteSnapshotResponse> {
        self.admin().delete_snapshot(&r.snapshot.name)?;
        Ok(pb::DeleteSnapshotResponse {})
    }
}
