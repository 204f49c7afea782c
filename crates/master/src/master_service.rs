//! MasterService: table and namespace administration, as native clients call it. Basalt's
//! procedures finish before the call returns, so every procedure id handed out is FINISHED
//! when asked about.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::Arc;

use basalt_proto::from_error as fail;
use basalt_proto::pb::ExceptionResponse;

mod cluster;
mod namespaces;
mod nonces;
mod refusals;
mod regions;
mod registry;
mod replication;
mod security;
mod snapshots;
mod tables;
mod tenancy;

pub use registry::ClientMetaService;

use basalt_ops::MasterRequest;

use crate::Admin;
use crate::master::Master;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// MasterService for one server.
#[derive(Debug)]
pub struct MasterService {
    master: Arc<Master>,
    /// The last procedure id handed out.
    procedures: AtomicU64,
    /// This master's address, and (standalone) the address its one region server serves at,
    /// which the cluster status reports for it.
    master_addr: SocketAddr,
    region_server: Option<SocketAddr>,
    /// The master's own start code (a cluster's master); None: its region server's.
    start_code: Option<i64>,
    /// When the cluster status was last asked for, and the requests served until then: the
    /// server load's requests per second are measured over the time between two asks.
    last_status: std::sync::Mutex<(std::time::Instant, u64)>,
    /// Set by StopMaster: a cluster's master process stops (a backup takes over); none in a
    /// standalone server, which refuses it.
    stop: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Whether callers authenticate with Kerberos (the RPC's SASL), for the capabilities.
    secure_authentication: bool,
    /// The procedure calls already run, by nonce (`nonces`).
    nonces: nonces::Nonces,
}

impl MasterService {
    pub fn new(master: Arc<Master>, addr: SocketAddr, region_server: Option<SocketAddr>) -> Self {
        MasterService {
            master,
            procedures: AtomicU64::new(0),
            master_addr: addr,
            region_server,
            start_code: None,
            last_status: std::sync::Mutex::new((std::time::Instant::now(), 0)),
            stop: None,
            secure_authentication: false,
            nonces: nonces::Nonces::default(),
        }
    }

    /// Callers authenticate with Kerberos: the capabilities say SECURE_AUTHENTICATION.
    pub fn with_secure_authentication(mut self, on: bool) -> Self {
        self.secure_authentication = on;
        self
    }

    /// Serves StopMaster by setting `flag`, which the master's process watches.
    pub fn with_stop(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// A cluster's master, started at `start_code` (its name's).
    pub fn with_start_code(mut self, start_code: i64) -> Self {
        self.start_code = Some(start_code);
        self
    }

    /// Runs `method` for `user` (none: a caller inside the process); `None` if MasterService
    /// has no such method.
    pub fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        user: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        if method == "ExecMasterService" {
            return Some(security::exec(self, param, user));
        }
        if method == "HasUserPermissions" {
            return Some(security::has_user_permissions(&self.master, param, user));
        }
        let request = MasterRequest::decode(method, param.unwrap_or_default())?;
        Some(
            request
                .map_err(|e| fail(&e))
                .and_then(|r| self.serve(r, user)),
        )
    }

    /// A decoded request: checked against what it needs of `user`, then run (once per
    /// nonce).
    pub(crate) fn serve(
        &self,
        request: MasterRequest,
        user: Option<&basalt_common::acl::User>,
    ) -> Outcome {
        if user.is_some()
            && self.master.access.is_enabled()
            && let Some(need) = request.need().map_err(|e| fail(&e))?
        {
            self.master
                .access
                .check_any(user, &need.actions, &need.scope)
                .map_err(|e| fail(&e))?;
        }
        match request.nonce() {
            Some(key) => self.nonces.once(key, || request.serve(self)),
            None => request.serve(self),
        }
    }

    /// A new procedure's id (finished: Basalt's procedures end before their call returns).
    fn procedure(&self) -> u64 {
        self.procedures.fetch_add(1, Ordering::AcqRel) + 1
    }

    fn admin(&self) -> Admin {
        Admin::new(Arc::clone(&self.master))
    }
}

impl basalt_proto::service::Service for MasterService {
    fn name(&self) -> &'static str {
        "MasterService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        _cell_block: &basalt_common::Bytes,
        caller: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        MasterService::call(self, method, param, caller)
    }
}
