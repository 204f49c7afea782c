//! The info servers of Basalt's processes (HBase's ports 16010 and 16030): what each process
//! shows, handed to `basalt-web` through its status sources.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use anyhow::Context;
use basalt_embedded::Client;
use basalt_embedded::metrics::{
    MasterMetrics, MasterStatus, MasterStatusSource, ServerMetrics, ServerStatus,
    ServerStatusSource,
};
use basalt_master::Master;
use basalt_regionserver::RegionServer;
use basalt_web::{InfoServer, InfoSources};

/// A region server's figures.
pub struct ServerSource(pub Arc<RegionServer>);

impl ServerStatusSource for ServerSource {
    fn server_status(&self) -> ServerStatus {
        self.0.status()
    }

    fn server_metrics(&self) -> Arc<ServerMetrics> {
        self.0.metrics()
    }
}

/// A master's figures; `name` is how the cluster knows it (`host,port,startcode`).
pub struct MasterSource {
    pub master: Arc<Master>,
    pub name: String,
}

impl MasterStatusSource for MasterSource {
    fn master_status(&self) -> MasterStatus {
        self.master.status(&self.name)
    }

    fn master_metrics(&self) -> Arc<MasterMetrics> {
        Arc::clone(&self.master.metrics)
    }
}

/// Starts an info server on `bind:port`, unless `port` is -1 (HBase's "off"); 0 picks a free
/// port. The caller prints where it listens ([`announce`]), after its own address line, which
/// the local cluster reads first.
pub fn start(
    bind: IpAddr,
    port: i32,
    what: &str,
    client: Option<Arc<dyn Client>>,
    master: Option<MasterSource>,
    server: Option<Arc<RegionServer>>,
    tls: Option<Arc<basalt_net::http::rustls::ServerConfig>>,
) -> anyhow::Result<Option<InfoServer>> {
    if port == -1 {
        return Ok(None);
    }
    let port = u16::try_from(port)
        .with_context(|| format!("--info-port {port} is not a port (0 picks one, -1 is off)"))?;
    // The process's settings: its region server's, or its master's.
    let settings = server
        .as_ref()
        .map(|rs| Arc::clone(&rs.config.settings))
        .or_else(|| master.as_ref().map(|m| Arc::clone(&m.master.settings)));
    let sources = InfoSources {
        client,
        settings,
        slow_log: server.as_ref().map(|rs| Arc::clone(&rs.slow_log)),
        master: master.map(|m| Arc::new(m) as Arc<dyn MasterStatusSource>),
        server: server.map(|rs| Arc::new(ServerSource(rs)) as Arc<dyn ServerStatusSource>),
    };
    let info = InfoServer::start(SocketAddr::new(bind, port), sources, tls)
        .with_context(|| format!("cannot listen on {bind}:{port} for the {what} info pages"))?;
    Ok(Some(info))
}

/// Prints where an info server listens: `info listening on HOST:PORT (<what>)`.
pub fn announce(info: Option<&InfoServer>, what: &str) {
    if let Some(info) = info {
        crate::say!("info listening on {} ({what})", info.local_addr());
    }
}
