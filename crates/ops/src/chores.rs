//! The master's chores (catalog janitor, cleaner, normalizer, snapshot cleanup): running
//! one and switching it needs global ADMIN; asking whether it is on is open to all.

use basalt_proto::pb;

use crate::declare::operations;
use crate::need;

operations! {
    /// The master's chores.
    area Chores, handler ChoreHandler;
    /// Runs the catalog janitor once.
    RunCatalogScan(pb::RunCatalogScanRequest) -> pb::RunCatalogScanResponse
        = run_catalog_scan, need need::admin;
    /// Switches the catalog janitor.
    EnableCatalogJanitor(pb::EnableCatalogJanitorRequest) -> pb::EnableCatalogJanitorResponse
        = enable_catalog_janitor, need need::admin;
    /// Whether the catalog janitor runs.
    IsCatalogJanitorEnabled(pb::IsCatalogJanitorEnabledRequest)
        -> pb::IsCatalogJanitorEnabledResponse = is_catalog_janitor_enabled, need need::anyone;
    /// Runs the cleaner once.
    RunCleanerChore(pb::RunCleanerChoreRequest) -> pb::RunCleanerChoreResponse
        = run_cleaner_chore, need need::admin;
    /// Switches the cleaner.
    SetCleanerChoreRunning(pb::SetCleanerChoreRunningRequest)
        -> pb::SetCleanerChoreRunningResponse = set_cleaner_chore_running, need need::admin;
    /// Whether the cleaner runs.
    IsCleanerChoreEnabled(pb::IsCleanerChoreEnabledRequest) -> pb::IsCleanerChoreEnabledResponse
        = is_cleaner_chore_enabled, need need::anyone;
    /// Switches the normalizer.
    SetNormalizerRunning(pb::SetNormalizerRunningRequest) -> pb::SetNormalizerRunningResponse
        = set_normalizer_running, need need::admin;
    /// Whether the normalizer runs.
    IsNormalizerEnabled(pb::IsNormalizerEnabledRequest) -> pb::IsNormalizerEnabledResponse
        = is_normalizer_enabled, need need::anyone;
    /// Switches the cleanup of expired snapshots.
    SwitchSnapshotCleanup(pb::SetSnapshotCleanupRequest) -> pb::SetSnapshotCleanupResponse
        = switch_snapshot_cleanup, need need::admin;
    /// Whether expired snapshots are cleaned up.
    IsSnapshotCleanupEnabled(pb::IsSnapshotCleanupEnabledRequest)
        -> pb::IsSnapshotCleanupEnabledResponse = is_snapshot_cleanup_enabled, need need::anyone;
}
