//! MasterService: every area's operations in one request, one answer and one handler.

crate::declare::service! {
    Tables(tables::TableHandler),
    Namespaces(namespaces::NamespaceHandler),
    Regions(regions::RegionHandler),
    Snapshots(snapshots::SnapshotHandler),
    Replication(replication::ReplicationHandler),
    Cluster(cluster::ClusterHandler),
    Chores(chores::ChoreHandler),
    Quotas(quotas::QuotaHandler),
    RsGroups(rsgroups::RsGroupHandler),
    Security(security::SecurityHandler),
}
