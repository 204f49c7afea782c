//! [`AsUser`]: an embedded connection whose every call is checked by access control as one
//! user's, as calls over the native RPC are. The gateways of a standalone process (Thrift,
//! REST) serve through one when access control is on, so that they grant nothing a client of
//! the RPC would not get.

use std::collections::HashMap;
use std::sync::Arc;

use basalt_common::acl::{AccessControl, Action, Scope, User};
use basalt_common::ops::{Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Increment};
use basalt_common::quota::{Quotas, Subject};
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};
use basalt_common::{Bytes, Delete, Get, Put, Result, RowResult, Scan, TableName};

use basalt_ops::{MasterRequest, MasterResponse};

use crate::{
    BatchOp, BatchOutcome, ClusterSummary, Connection, EndpointCall, RegionSummary, Scanner,
};

/// An embedded connection acting as `user`.
#[derive(Debug)]
pub struct AsUser {
    inner: Arc<Connection>,
    user: User,
}

impl Connection {
    /// This connection, every call checked as `user`'s (a no-op with access control off).
    pub fn as_user(&self, user: User) -> AsUser {
        AsUser {
            inner: Arc::new(self.clone()),
            user,
        }
    }
}

impl AsUser {
    fn access(&self) -> &AccessControl {
        &self.inner.engine.region_config.access
    }

    fn user(&self) -> Option<&User> {
        Some(&self.user)
    }

    fn admin(&self) -> Result<()> {
        self.access()
            .check(self.user(), Action::Admin, &Scope::Global)
    }

    fn admin_or_create(&self, table: &TableName) -> Result<()> {
        self.access().check_any(
            self.user(),
            &[Action::Admin, Action::Create],
            &Scope::table(table),
        )
    }

    fn families(&self, table: &TableName) -> Vec<Bytes> {
        // The master's own descriptor: this runs on every checked write.
        self.inner
            .admin()
            .describe_table(table)
            .map(|d| d.families().iter().map(|f| f.name.clone()).collect())
            .unwrap_or_default()
    }

    fn may_write(&self, table: &TableName, action: &CheckAction) -> Result<()> {
        if !self.access().is_enabled() {
            return Ok(());
        }
        self.access()
            .check_mutation(self.user(), table, action, &self.families(table))
    }

    fn readable_get(&self, table: &TableName, get: &Get) -> Result<Get> {
        let mut get = get.clone();
        if self.access().is_enabled() {
            let all = self.families(table);
            self.access()
                .restrict_read(self.user(), table, &mut get.families, &all)?;
        }
        Ok(get)
    }

    fn may_read_checked(&self, table: &TableName, cam: &CheckAndMutate) -> Result<()> {
        let family = match &cam.check {
            basalt_common::ops::Check::Column(c) => Some(c.family.clone()),
            basalt_common::ops::Check::Filter { .. } => None,
        };
        let asked: Vec<Bytes> = family.into_iter().collect();
        self.access()
            .readable(self.user(), table, &asked, &self.families(table))
            .map(|_| ())
    }
}

impl basalt_client::Caller for AsUser {
    /// Checked against what the operation needs, then run as the connection runs it.
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        if self.access().is_enabled()
            && let Some(need) = request.need()?
        {
            self.access()
                .check_any(self.user(), &need.actions, &need.scope)?;
        }
        self.inner.call_master(on, request)
    }
}

impl basalt_client::ServerAdmin for AsUser {
    fn server_name(&self) -> String {
        self.inner.server_name()
    }

    fn cluster_summary(&self) -> Result<ClusterSummary> {
        self.inner.cluster_summary()
    }

    fn regions(&self, name: &TableName) -> Result<Vec<RegionSummary>> {
        self.inner.regions(name)
    }

    fn region_sizes(&self, name: &TableName) -> Result<HashMap<Bytes, u64>> {
        self.inner.region_sizes(name)
    }

    fn flush(&self, name: &TableName) -> Result<()> {
        self.admin_or_create(name)?;
        self.inner.flush(name)
    }

    fn compact(&self, name: &TableName, major: bool) -> Result<()> {
        self.admin_or_create(name)?;
        self.inner.compact(name, major)
    }

    fn compact_region(&self, region: &[u8], major: bool) -> Result<()> {
        self.admin()?;
        self.inner.compact_region(region, major)
    }

    fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()> {
        self.admin()?;
        self.inner.split(name, at)
    }

    fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin()?;
        self.inner.merge_regions(name, a, b)
    }

    fn truncate_region(&self, name: &TableName, region: &[u8]) -> Result<()> {
        self.admin()?;
        self.inner.truncate_region(name, region)
    }

    // Every peer call needs global ADMIN, as HBase's AccessController asks.

    fn stop_region_server(&self, server: &str) -> Result<()> {
        self.admin()?;
        self.inner.stop_region_server(server)
    }

    fn compaction_switch(&self, on: bool, servers: &[String]) -> Result<Vec<(String, bool)>> {
        self.admin()?;
        self.inner.compaction_switch(on, servers)
    }

    fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)> {
        self.admin()?;
        self.inner.clear_block_cache(table)
    }

    fn roll_wal_writer(&self, server: &str) -> Result<()> {
        self.admin()?;
        self.inner.roll_wal_writer(server)
    }

    fn update_config(&self, server: &str) -> Result<()> {
        self.admin()?;
        self.inner.update_config(server)
    }

    fn update_all_config(&self) -> Result<()> {
        self.admin()?;
        self.inner.update_all_config()
    }

    fn compaction_state(&self, table: &TableName) -> Result<String> {
        self.inner.compaction_state(table)
    }

    fn slow_log(
        &self,
        servers: &[String],
        filter: &SlowLogFilter,
    ) -> Result<Vec<(String, SlowCall)>> {
        self.admin()?;
        self.inner.slow_log(servers, filter)
    }

    fn clear_slow_log(&self, servers: &[String]) -> Result<(usize, usize)> {
        self.admin()?;
        self.inner.clear_slow_log(servers)
    }

    fn list_quotas(&self) -> Result<Vec<(Subject, Quotas)>> {
        self.admin()?;
        self.inner.list_quotas()
    }

    fn zk_dump(&self) -> Result<String> {
        self.admin()?;
        self.inner.zk_dump()
    }

    fn clear_compaction_queues(&self, server: &str, queues: &[String]) -> Result<()> {
        self.admin()?;
        self.inner.clear_compaction_queues(server, queues)
    }

    fn run_hbck_chore(&self) -> Result<bool> {
        self.admin()?;
        self.inner.run_hbck_chore()
    }
}

impl basalt_client::DataClient for AsUser {
    fn bulk_load(
        &self,
        table: &TableName,
        row: &[u8],
        files: &[(Bytes, std::path::PathBuf)],
    ) -> Result<()> {
        // HBase's AccessController: a bulk load needs CREATE on the table.
        self.access()
            .check(self.user(), Action::Create, &Scope::table(table))?;
        self.inner.bulk_load(table, row, files)
    }

    fn coprocessor_service(
        &self,
        table: &TableName,
        call: &EndpointCall<'_>,
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        // As HBase by default (no EXEC permission checks): reaching the table is enough.
        self.inner.coprocessor_service(table, call)
    }

    fn put(&self, table: &TableName, put: &Put) -> Result<()> {
        self.may_write(table, &CheckAction::Put(put.clone()))?;
        self.inner.put(table, put)
    }

    fn delete(&self, table: &TableName, delete: &Delete) -> Result<()> {
        self.may_write(table, &CheckAction::Delete(delete.clone()))?;
        self.inner.delete(table, delete)
    }

    fn get(&self, table: &TableName, get: &Get) -> Result<RowResult> {
        let get = self.readable_get(table, get)?;
        self.inner.get(table, &get)
    }

    fn aggregate(
        self: Arc<Self>,
        table: &TableName,
        scan: &Scan,
        interpreter: basalt_client::aggregate::Interpreter,
        what: basalt_client::aggregate::Aggregation,
    ) -> Result<Option<basalt_client::aggregate::Number>> {
        // read through this user's scan, so its grants apply, as one part.
        basalt_client::aggregate::computed_here(self, table, scan, interpreter, what)
    }

    fn scan(self: Arc<Self>, table: &TableName, scan: &Scan) -> Result<Scanner> {
        let mut scan = scan.clone();
        if self.access().is_enabled() {
            let all = self.families(table);
            self.access()
                .restrict_read(self.user(), table, &mut scan.families, &all)?;
        }
        Arc::clone(&self.inner).scan(table, &scan)
    }

    fn increment(&self, table: &TableName, inc: &Increment) -> Result<RowResult> {
        self.may_write(table, &CheckAction::Increment(inc.clone()))?;
        self.inner.increment(table, inc)
    }

    fn append(&self, table: &TableName, append: &Append) -> Result<RowResult> {
        self.may_write(table, &CheckAction::Append(append.clone()))?;
        self.inner.append(table, append)
    }

    fn check_and_mutate(
        &self,
        table: &TableName,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult> {
        if self.access().is_enabled() {
            self.may_read_checked(table, cam)?;
            self.may_write(table, &cam.action)?;
        }
        self.inner.check_and_mutate(table, cam)
    }

    fn batch(&self, table: &TableName, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        // Each operation is checked on its own; a refused one fails alone, as in a Multi.
        let mut checked: Vec<Option<BatchOp>> = Vec::with_capacity(ops.len());
        let mut refusals: Vec<Option<basalt_common::Error>> = Vec::with_capacity(ops.len());
        for op in ops {
            let verdict = match op {
                BatchOp::Get(g) => self.readable_get(table, g).map(BatchOp::Get),
                BatchOp::Put(p) => self
                    .may_write(table, &CheckAction::Put(p.clone()))
                    .map(|()| op.clone()),
                BatchOp::Delete(d) => self
                    .may_write(table, &CheckAction::Delete(d.clone()))
                    .map(|()| op.clone()),
                BatchOp::Increment(i) => self
                    .may_write(table, &CheckAction::Increment(i.clone()))
                    .map(|()| op.clone()),
                BatchOp::Append(a) => self
                    .may_write(table, &CheckAction::Append(a.clone()))
                    .map(|()| op.clone()),
                BatchOp::RowMutations(m) => self
                    .may_write(table, &CheckAction::RowMutations(m.clone()))
                    .map(|()| op.clone()),
                BatchOp::CheckAndMutate(c) => self
                    .may_read_checked(table, c)
                    .and_then(|()| self.may_write(table, &c.action))
                    .map(|()| op.clone()),
            };
            match verdict {
                Ok(op) => {
                    checked.push(Some(op));
                    refusals.push(None);
                }
                Err(e) => {
                    checked.push(None);
                    refusals.push(Some(e));
                }
            }
        }
        let allowed: Vec<BatchOp> = checked.iter().flatten().cloned().collect();
        let mut done = self.inner.batch(table, &allowed).into_iter();
        refusals
            .into_iter()
            .map(|refused| match refused {
                Some(e) => Err(e),
                None => done.next().unwrap_or_else(|| {
                    Err(basalt_common::Error::storage(
                        "a batch answered fewer operations",
                    ))
                }),
            })
            .collect()
    }
}
