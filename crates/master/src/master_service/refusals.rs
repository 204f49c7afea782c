//! What MasterService refuses by name rather than ignore (docs/design/fields.md): snapshot
//! fields Basalt does not keep, and restore options it has no use for.

use basalt_common::Result;
use basalt_proto::pb;
use basalt_proto::refusal as refused;

/// The fields of a snapshot request Basalt refuses (docs/design/fields.md): a snapshot
/// without a flush (Basalt flushes every region it snapshots), and what the master sets
/// itself (owner, creation time, format version) or does not keep (permissions, a file size).
pub(super) fn check_snapshot(d: &pb::SnapshotDescription) -> Result<()> {
    use pb::snapshot_description::Type;
    if d.r#type == Some(Type::Skipflush as i32) {
        return Err(refused(
            "SnapshotDescription.type SKIPFLUSH",
            "Basalt flushes every region it snapshots",
        ));
    }
    if d.creation_time.is_some_and(|t| t > 0) {
        return Err(refused(
            "SnapshotDescription.creation_time",
            "the master stamps a snapshot when it takes it",
        ));
    }
    if d.version
        .is_some_and(|v| v != crate::snapshots::FORMAT_VERSION)
    {
        return Err(refused(
            "SnapshotDescription.version",
            &format!("Basalt writes format {}", crate::snapshots::FORMAT_VERSION),
        ));
    }
    if d.owner.as_deref().is_some_and(|o| !o.is_empty()) {
        return Err(refused(
            "SnapshotDescription.owner",
            "Basalt does not record snapshot owners",
        ));
    }
    if d.users_and_permissions.is_some() {
        return Err(refused(
            "SnapshotDescription.users_and_permissions",
            "Basalt's snapshots do not carry grants",
        ));
    }
    if d.max_file_size.is_some_and(|m| m > 0) {
        return Err(refused(
            "SnapshotDescription.max_file_size",
            "Basalt's snapshots keep no file size for their clones",
        ));
    }
    Ok(())
}

/// Clone and restore: Basalt's snapshots carry no grants to restore, and its stores have one
/// file tracker.
pub(super) fn check_restore(owner: &str, restore_acl: bool, sft: Option<&str>) -> Result<()> {
    if restore_acl {
        return Err(refused(
            &format!("{owner}.restoreACL"),
            "Basalt's snapshots do not carry grants",
        ));
    }
    if sft.is_some_and(|s| !s.is_empty()) {
        return Err(refused(
            &format!("{owner}.customSFT"),
            "Basalt's stores have one file tracker",
        ));
    }
    Ok(())
}
