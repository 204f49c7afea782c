//! [`DataClient`] and [`ServerAdmin`] for [`RemoteConnection`]: the remote side of the
//! interface tools share with embedded connections.

use basalt_common::quota::{Quotas, Subject};
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};
use std::sync::Arc;

use crate::{ClusterSummary, DataClient, EndpointCall, RegionSummary, Scanner, ServerAdmin};

use super::*;

impl ServerAdmin for RemoteConnection {
    fn server_name(&self) -> String {
        self.admin()
            .server_name()
            .unwrap_or_else(|_| self.core.meta_addr().to_string().replacen(':', ",", 1))
    }

    fn cluster_summary(&self) -> Result<ClusterSummary> {
        self.admin().cluster_summary()
    }

    fn regions(&self, name: &TableName) -> Result<Vec<RegionSummary>> {
        // Which server holds which region, as the cluster status says.
        let held: HashMap<Bytes, String> = self
            .admin()
            .cluster_summary()
            .map(|s| {
                s.servers
                    .into_iter()
                    .flat_map(|srv| {
                        let server = srv.name;
                        srv.regions
                            .into_iter()
                            .map(move |r| (r.name, server.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(self
            .admin()
            .regions(name)?
            .into_iter()
            .map(|l| {
                let name = Bytes::from(l.name);
                RegionSummary {
                    // A server that does not answer the status is still where meta says.
                    server: held
                        .get(&name)
                        .cloned()
                        .or_else(|| l.server.map(|a| a.to_string())),
                    name,
                    start_key: Bytes::from(l.start),
                    end_key: Bytes::from(l.end),
                }
            })
            .collect())
    }

    fn region_sizes(&self, name: &TableName) -> Result<HashMap<Bytes, u64>> {
        // The cluster status covers every table; keep this table's regions.
        let prefix = format!("{name},");
        Ok(self
            .admin()
            .region_sizes()?
            .into_iter()
            .filter(|(region, _)| region.starts_with(prefix.as_bytes()))
            .map(|(region, size)| (Bytes::from(region), size))
            .collect())
    }

    fn flush(&self, name: &TableName) -> Result<()> {
        self.admin().flush(name)
    }

    fn compact(&self, name: &TableName, major: bool) -> Result<()> {
        self.admin().compact(name, major)
    }

    fn compact_region(&self, region: &[u8], major: bool) -> Result<()> {
        self.admin().compact_region(region, major)
    }

    fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()> {
        self.admin().split(name, at)
    }

    fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin().merge_regions(name, a, b)
    }

    fn truncate_region(&self, name: &TableName, region: &[u8]) -> Result<()> {
        self.admin().truncate_region(name, region)
    }

    fn stop_region_server(&self, server: &str) -> Result<()> {
        self.admin().stop_region_server(server)
    }

    fn compaction_switch(&self, on: bool, servers: &[String]) -> Result<Vec<(String, bool)>> {
        self.admin().compaction_switch(on, servers)
    }

    fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)> {
        self.admin().clear_block_cache(table)
    }

    fn roll_wal_writer(&self, server: &str) -> Result<()> {
        self.admin().roll_wal_writer(server)
    }

    fn update_config(&self, server: &str) -> Result<()> {
        self.admin().update_config(server)
    }

    fn update_all_config(&self) -> Result<()> {
        self.admin().update_all_config()
    }

    fn compaction_state(&self, table: &TableName) -> Result<String> {
        self.admin().compaction_state(table)
    }

    fn slow_log(
        &self,
        servers: &[String],
        filter: &SlowLogFilter,
    ) -> Result<Vec<(String, SlowCall)>> {
        self.admin().slow_log(servers, filter)
    }

    fn clear_slow_log(&self, servers: &[String]) -> Result<(usize, usize)> {
        self.admin().clear_slow_log(servers)
    }

    fn list_quotas(&self) -> Result<Vec<(Subject, Quotas)>> {
        // As HBase's QuotaRetriever: a scan of hbase:quota (none before the first quota).
        let table = TableName::parse(basalt_common::quota::QUOTA_TABLE)?;
        let rows = match self
            .table(basalt_common::quota::QUOTA_TABLE)?
            .scan(&Scan::new())
        {
            Ok(rows) => rows,
            Err(Error::TableNotFound(t)) if t == table => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        for row in &rows {
            for cell in &row.cells {
                let (r, q) = (
                    String::from_utf8_lossy(cell.row()),
                    String::from_utf8_lossy(cell.qualifier()),
                );
                if cell.family() == basalt_common::quota::QUOTA_FAMILY
                    && let Some(subject) = Subject::from_row_and_qualifier(&r, &q)
                {
                    out.push((
                        subject,
                        basalt_proto::quota::quotas_from_data(cell.value())?,
                    ));
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }

    fn zk_dump(&self) -> Result<String> {
        let Some(quorum) = &self.core.quorum else {
            return Err(Error::Refused(
                "this connection did not come through ZooKeeper (--zookeeper): there is no \
                 quorum to dump"
                    .into(),
            ));
        };
        basalt_coord::dump(quorum, self.core.config.rpc_timeout)
            .map_err(|e| Error::storage(format!("ZooKeeper at {quorum}: {e}")))
    }

    fn clear_compaction_queues(&self, server: &str, queues: &[String]) -> Result<()> {
        self.admin().clear_compaction_queues(server, queues)
    }

    fn run_hbck_chore(&self) -> Result<bool> {
        let r: pb::RunHbckChoreResponse =
            self.hbck_call("RunHbckChore", &pb::RunHbckChoreRequest {})?;
        Ok(r.ran)
    }
}

impl DataClient for RemoteConnection {
    fn put(&self, table: &TableName, put: &Put) -> Result<()> {
        self.on(table).put(put)
    }

    fn delete(&self, table: &TableName, delete: &Delete) -> Result<()> {
        self.on(table).delete(delete)
    }

    fn get(&self, table: &TableName, get: &Get) -> Result<RowResult> {
        self.on(table).get(get)
    }

    fn scan(self: Arc<Self>, table: &TableName, scan: &Scan) -> Result<Scanner> {
        Ok(Scanner::new(RemoteScanner::open(
            self,
            table.clone(),
            scan.clone(),
        )?))
    }

    fn increment(&self, table: &TableName, inc: &Increment) -> Result<RowResult> {
        self.on(table).increment(inc)
    }

    fn append(&self, table: &TableName, append: &Append) -> Result<RowResult> {
        self.on(table).append(append)
    }

    fn check_and_mutate(
        &self,
        table: &TableName,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult> {
        self.on(table).check_and_mutate(cam)
    }

    fn batch(&self, table: &TableName, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        self.on(table).batch(ops)
    }

    fn bulk_load(
        &self,
        table: &TableName,
        row: &[u8],
        files: &[(Bytes, std::path::PathBuf)],
    ) -> Result<()> {
        self.on(table).bulk_load(row, files)
    }

    fn coprocessor_service(
        &self,
        table: &TableName,
        call: &EndpointCall<'_>,
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        self.on(table)
            .coprocessor_service(call.range, call.service, call.method, call.request)
    }

    fn aggregate(
        self: Arc<Self>,
        table: &TableName,
        scan: &Scan,
        interpreter: crate::aggregate::Interpreter,
        what: crate::aggregate::Aggregation,
    ) -> Result<Option<crate::aggregate::Number>> {
        use crate::aggregate::{self as agg, Aggregation};
        let (_, value, weight) = agg::columns(scan, what)?;
        if what == Aggregation::Median {
            // The values are sorted here: only the value and weight columns travel.
            let rows = Arc::clone(&self).scan(table, scan)?;
            return agg::median(
                rows,
                interpreter,
                &value.unwrap_or_default(),
                weight.as_deref(),
            );
        }
        let parts = self.on(table).aggregate_parts(scan, interpreter, what)?;
        Ok(agg::merge(what, &parts))
    }
}

impl RemoteConnection {
    fn on(&self, table: &TableName) -> RemoteTable<'_> {
        RemoteTable {
            conn: self,
            name: table.clone(),
        }
    }
}
