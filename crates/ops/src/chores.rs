//! The master's chores (catalog janitor, cleaner, normalizer, snapshot cleanup): running
//! one and switching it needs global ADMIN; asking whether it is on is open to all.

use basalt_common::Result;
use basalt_common::chore::Chore;
use basalt_proto::pb;

use crate::declare::{calls, operations};
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

calls! {
    /// The master's chores.
    ChoreAdmin, AsyncChoreAdmin;

    /// Switches one of the master's chores; returns whether it was on.
    async fn chore_switch(c, chore: Chore, on: bool) -> Result<bool> {
        Ok(match chore {
            Chore::CatalogJanitor => {
                let request = pb::EnableCatalogJanitorRequest { enable: on };
                let r = c.call::<EnableCatalogJanitor>(None, request).await?;
                r.prev_value.unwrap_or(false)
            }
            Chore::Cleaner => {
                let request = pb::SetCleanerChoreRunningRequest { on };
                let r = c.call::<SetCleanerChoreRunning>(None, request).await?;
                r.prev_value.unwrap_or(false)
            }
            Chore::SnapshotCleanup => {
                let request = pb::SetSnapshotCleanupRequest {
                    enabled: on,
                    synchronous: None,
                };
                c.call::<SwitchSnapshotCleanup>(None, request)
                    .await?
                    .prev_snapshot_cleanup
            }
            Chore::Normalizer => {
                let request = pb::SetNormalizerRunningRequest { on };
                let r = c.call::<SetNormalizerRunning>(None, request).await?;
                r.prev_normalizer_value.unwrap_or(false)
            }
        })
    }

    /// Whether one of the master's chores is on.
    async fn chore_enabled(c, chore: Chore) -> Result<bool> {
        Ok(match chore {
            Chore::CatalogJanitor => {
                let request = pb::IsCatalogJanitorEnabledRequest {};
                c.call::<IsCatalogJanitorEnabled>(None, request).await?.value
            }
            Chore::Cleaner => {
                let request = pb::IsCleanerChoreEnabledRequest {};
                c.call::<IsCleanerChoreEnabled>(None, request).await?.value
            }
            Chore::SnapshotCleanup => {
                let request = pb::IsSnapshotCleanupEnabledRequest {};
                c.call::<IsSnapshotCleanupEnabled>(None, request).await?.enabled
            }
            Chore::Normalizer => {
                let request = pb::IsNormalizerEnabledRequest {};
                c.call::<IsNormalizerEnabled>(None, request).await?.enabled
            }
        })
    }

    /// Runs the cleaner chore now; whether it ran.
    async fn run_cleaner_chore(c) -> Result<bool> {
        let r = c
            .call::<RunCleanerChore>(None, pb::RunCleanerChoreRequest {})
            .await?;
        Ok(r.cleaner_chore_ran)
    }

    /// Runs the catalog janitor now; how many leftovers it cleaned.
    async fn run_catalog_janitor(c) -> Result<usize> {
        let r = c
            .call::<RunCatalogScan>(None, pb::RunCatalogScanRequest {})
            .await?;
        Ok(usize::try_from(r.scan_result.unwrap_or(0)).unwrap_or(0))
    }
}
