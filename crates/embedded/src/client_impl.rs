//! [`DataClient`](basalt_client::DataClient) and [`ServerAdmin`](basalt_client::ServerAdmin)
//! for the embedded [`Connection`]: the calls go straight to the engine in this process.

use std::collections::HashMap;
use std::sync::Arc;

use basalt_client::{
    BatchOp, BatchOutcome, ClusterSummary, EndpointCall, RegionLoad, RegionSummary, Scanner,
    ServerSummary,
};
use basalt_common::ops::{Append, CheckAndMutate, CheckAndMutateResult, Increment};
use basalt_common::quota::{Quotas, Subject};
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};
use basalt_common::{Bytes, Delete, Error, Get, Put, Result, RowResult, Scan, TableName};

use basalt_ops::{MasterRequest, MasterResponse};

use crate::Connection;

impl basalt_client::Caller for Connection {
    /// The operation run on the master in this process: no wire, no nonce (a call in the
    /// process is not retried), and no access check (`AsUser` checks for a user).
    fn call_master(
        &self,
        _on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        request.handle(&self.engine.service)
    }
}

impl basalt_client::ServerAdmin for Connection {
    fn server_name(&self) -> String {
        self.engine.rs.name.to_string()
    }

    fn cluster_summary(&self) -> Result<ClusterSummary> {
        // The one region server's online regions (a disabled table's are not), meta's first.
        let status = self.engine.rs.status();
        let mut regions: Vec<RegionLoad> = status
            .regions
            .iter()
            .map(|r| RegionLoad {
                name: Bytes::from(r.name.clone().into_bytes()),
                stores: u32::try_from(r.stores).unwrap_or(u32::MAX),
                store_files: u32::try_from(r.store_files).unwrap_or(u32::MAX),
                store_file_size: r.store_file_bytes,
                memstore_size: r.memstore_bytes,
                read_requests: r.read_requests,
                write_requests: r.write_requests,
            })
            .collect();
        regions.sort_by_key(|r| !r.name.starts_with(b"hbase:meta,"));
        let name = self.server_name();
        Ok(ClusterSummary {
            live_servers: 1,
            dead: Vec::new(),
            regions: regions.len(),
            master: name.clone(),
            backup_masters: 0,
            servers: vec![ServerSummary {
                name,
                regions,
                replication: status.replication_sources.clone(),
                sink: status.replication_sink.clone(),
                tasks: status
                    .tasks
                    .iter()
                    .map(|t| basalt_client::TaskSummary {
                        description: format!("{}: {}", t.kind, t.description),
                        started_ms: i64::try_from(t.started_ms).unwrap_or(i64::MAX),
                    })
                    .collect(),
            }],
            cluster_id: self.engine().master().cluster_id.clone(),
        })
    }

    fn regions(&self, name: &TableName) -> Result<Vec<RegionSummary>> {
        Ok(self
            .admin()
            .regions(name)?
            .into_iter()
            .map(|r| RegionSummary {
                name: r.name,
                start_key: r.start_key,
                end_key: r.end_key,
                // The one server in this process (whose name the caller knows).
                server: None,
            })
            .collect())
    }

    fn region_sizes(&self, name: &TableName) -> Result<HashMap<Bytes, u64>> {
        Ok(self
            .admin()
            .regions(name)?
            .into_iter()
            .map(|r| (r.name, r.store_file_size + r.memstore_size))
            .collect())
    }

    fn flush(&self, name: &TableName) -> Result<()> {
        self.admin().flush(name)
    }

    fn compact(&self, name: &TableName, major: bool) -> Result<()> {
        if major {
            self.admin().major_compact(name)
        } else {
            self.admin().compact(name)
        }
    }

    fn compact_region(&self, region: &[u8], major: bool) -> Result<()> {
        self.admin().compact_region(region, major)
    }

    fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()> {
        self.admin().split(name, at)
    }

    fn stop_region_server(&self, server: &str) -> Result<()> {
        Err(basalt_common::Error::Refused(format!(
            "{server}: the region server of an embedded engine stops with it"
        )))
    }

    fn compaction_switch(&self, on: bool, _servers: &[String]) -> Result<Vec<(String, bool)>> {
        let rs = &self.engine.rs;
        Ok(vec![(rs.name.to_string(), rs.switch_compactions(on))])
    }

    fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)> {
        let regions = self.engine.table(table)?.regions();
        Ok(self.engine.rs.clear_block_cache(&regions))
    }

    fn roll_wal_writer(&self, _server: &str) -> Result<()> {
        self.engine.rs.roll_wal()
    }

    fn update_config(&self, _server: &str) -> Result<()> {
        self.update_all_config()
    }

    fn update_all_config(&self) -> Result<()> {
        let rs = &self.engine.rs;
        rs.config.settings.update(&rs.name.to_string()).map(|_| ())
    }

    fn compaction_state(&self, table: &TableName) -> Result<String> {
        let (mut minor, mut major) = (false, false);
        for r in self.admin().open_regions(table)? {
            let (mi, ma) = r.compaction_state();
            minor |= mi;
            major |= ma;
        }
        Ok(basalt_common::metrics::compaction_state_name(minor, major).to_owned())
    }

    fn slow_log(
        &self,
        _servers: &[String],
        filter: &SlowLogFilter,
    ) -> Result<Vec<(String, SlowCall)>> {
        let rs = &self.engine.rs;
        Ok(rs
            .slow_log
            .read(filter)
            .into_iter()
            .map(|c| (rs.name.to_string(), c))
            .collect())
    }

    fn clear_slow_log(&self, _servers: &[String]) -> Result<(usize, usize)> {
        self.engine.rs.slow_log.clear();
        Ok((1, 1))
    }

    fn list_quotas(&self) -> Result<Vec<(Subject, Quotas)>> {
        basalt_master::quota_store::list(&self.engine)
    }

    fn zk_dump(&self) -> Result<String> {
        Err(basalt_common::Error::Refused(
            "an embedded engine keeps nothing in ZooKeeper".into(),
        ))
    }

    fn clear_compaction_queues(&self, _server: &str, queues: &[String]) -> Result<()> {
        // As the server's AdminService: no queue to clear, the names checked.
        match queues.iter().find(|q| *q != "long" && *q != "short") {
            Some(bad) => Err(basalt_common::Error::InvalidArgument(format!(
                "Unknown queue name {bad}: the queues are long and short"
            ))),
            None => Ok(()),
        }
    }

    fn run_hbck_chore(&self) -> Result<bool> {
        basalt_master::hbck::check(&self.engine)?;
        Ok(true)
    }

    fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        let admin = self.admin();
        for region in [a, b] {
            let info = admin.region_info(region)?;
            if info.table != *name {
                return Err(Error::InvalidArgument(format!(
                    "region {} is not a region of {name}",
                    String::from_utf8_lossy(region)
                )));
            }
        }
        admin.merge_regions(a, b).map(|_| ())
    }

    fn truncate_region(&self, name: &TableName, region: &[u8]) -> Result<()> {
        let admin = self.admin();
        if admin.region_info(region)?.table != *name {
            return Err(Error::InvalidArgument(format!(
                "region {} is not a region of {name}",
                String::from_utf8_lossy(region)
            )));
        }
        admin.truncate_region(region).map(|_| ())
    }
}

impl basalt_client::DataClient for Connection {
    fn put(&self, table: &TableName, put: &Put) -> Result<()> {
        self.table_named(table.clone()).put(put)
    }

    fn delete(&self, table: &TableName, delete: &Delete) -> Result<()> {
        self.table_named(table.clone()).delete(delete)
    }

    fn get(&self, table: &TableName, get: &Get) -> Result<RowResult> {
        self.table_named(table.clone()).get(get)
    }

    fn coprocessor_service(
        &self,
        table: &TableName,
        call: &EndpointCall<'_>,
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        self.table_named(table.clone()).coprocessor_service(
            call.range,
            call.service,
            call.method,
            call.request,
        )
    }

    fn aggregate(
        self: Arc<Self>,
        table: &TableName,
        scan: &Scan,
        interpreter: basalt_client::aggregate::Interpreter,
        what: basalt_client::aggregate::Aggregation,
    ) -> Result<Option<basalt_client::aggregate::Number>> {
        // the engine's regions are in this process: the rows are read here, as one part.
        basalt_client::aggregate::computed_here(self, table, scan, interpreter, what)
    }

    fn scan(self: Arc<Self>, table: &TableName, scan: &Scan) -> Result<Scanner> {
        Ok(Scanner::new(self.table_named(table.clone()).scan(scan)?))
    }

    fn increment(&self, table: &TableName, inc: &Increment) -> Result<RowResult> {
        self.table_named(table.clone()).increment(inc)
    }

    fn append(&self, table: &TableName, append: &Append) -> Result<RowResult> {
        self.table_named(table.clone()).append(append)
    }

    fn check_and_mutate(
        &self,
        table: &TableName,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult> {
        self.table_named(table.clone()).check_and_mutate(cam)
    }

    fn batch(&self, table: &TableName, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        self.table_named(table.clone()).batch(ops)
    }

    fn bulk_load(
        &self,
        table: &TableName,
        row: &[u8],
        files: &[(Bytes, std::path::PathBuf)],
    ) -> Result<()> {
        let hosted = self.engine.table(table)?;
        if !hosted.is_enabled() {
            return Err(basalt_common::Error::TableNotEnabled(table.clone()));
        }
        let region = hosted.region_for(row)?;
        self.engine.rs.bulk_load(&region, files, true).map(|_| ())
    }
}
