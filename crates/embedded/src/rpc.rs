//! Serving an embedded engine over HBase's native RPC (`basalt standalone --rpc-port`): its
//! region server's ClientService and AdminService and its master's MasterService (with
//! ClientMetaService, for HBase's RpcConnectionRegistry) on one port.
//! The transport (`basalt-rpc`) knows none of them; this is where they are put together.

use std::io;
use std::net::TcpListener;
use std::sync::Arc;

use basalt_master::hbck_service::HbckService;
use basalt_master::master_service::{ClientMetaService, MasterService};
use basalt_regionserver::admin_service::AdminService;
use basalt_regionserver::client_service::ClientService;
use basalt_regionserver::replication::sink::Sink;
use basalt_rpc::{RpcConfig, RpcServer, Services};

use crate::Connection;

impl Connection {
    /// Serves this engine's master and region server on one port, bound as `config` says.
    pub fn serve_rpc(&self, mut config: RpcConfig) -> io::Result<RpcServer> {
        // Its slow calls go to the engine's region server's slow log.
        config
            .slow_log
            .get_or_insert_with(|| Arc::clone(&self.region_server().slow_log));
        let listener = TcpListener::bind(config.bind)?;
        let addr = listener.local_addr()?;
        // The throttles hbase:quota keeps, read from the engine's own master.
        let master = self.engine().master();
        let quotas = basalt_regionserver::quotas::QuotaCache::start(
            Box::new(move || basalt_master::quota_store::state(&master)),
            addr.to_string(),
        );
        let master_service = Arc::new(
            MasterService::new(
                self.engine().master(),
                addr,
                Some(config.region_server.unwrap_or(addr)),
            )
            .with_secure_authentication(config.kerberos.is_some()),
        );
        // RpcConnectionRegistry's clients ask this port for the cluster id, then for where
        // meta and the master are.
        config
            .cluster_id
            .get_or_insert_with(|| self.engine().master().cluster_id.clone());
        let services = Services::new()
            .with(Arc::new(
                ClientService::new(self.region_server(), config.scanner_lease).with_quotas(quotas),
            ))
            .with(Arc::new(
                AdminService::new(self.region_server(), addr).with_sink(Arc::new(
                    Sink::with_client(
                        Arc::new(self.clone()),
                        Arc::clone(&self.region_server().sink_metrics),
                    ),
                )),
            ))
            .with(Arc::clone(&master_service) as Arc<dyn basalt_rpc::service::Service>)
            .with(Arc::new(ClientMetaService::new(master_service)))
            .with(Arc::new(HbckService::new(self.engine().master())));
        RpcServer::serve(listener, services, config)
    }
}
