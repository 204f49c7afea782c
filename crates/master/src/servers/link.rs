//! One service on one server, as the master reaches it: a native-RPC connection opened at the
//! first call, kept, and opened again after it breaks; failures as Basalt's errors naming the
//! server.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use prost::Message;

use basalt_common::{Error, Result, ServerName};
use basalt_transport::{DEFAULT_USER, RpcClient, RpcError, TlsClient};

/// How the master reaches a server: how long one call may take (opening a region replays
/// its edits: minutes at worst), and TLS, when the cluster's servers speak it.
#[derive(Debug, Clone)]
pub struct LinkConfig {
    pub timeout: Duration,
    pub tls: Option<TlsClient>,
}

#[derive(Debug)]
pub(super) struct Link {
    pub name: ServerName,
    pub addr: SocketAddr,
    service: &'static str,
    pub config: LinkConfig,
    client: Mutex<Option<Arc<RpcClient>>>,
}

impl Link {
    pub fn new(name: ServerName, service: &'static str, config: LinkConfig) -> Result<Link> {
        let addr = name
            .host_port
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| {
                Error::InvalidArgument(format!("server {name}: cannot resolve its address"))
            })?;
        Ok(Link {
            name,
            addr,
            service,
            config,
            client: Mutex::new(None),
        })
    }

    fn client(&self) -> Result<Arc<RpcClient>> {
        let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(c) = slot.as_ref().filter(|c| !c.is_broken()) {
            return Ok(Arc::clone(c));
        }
        let client = RpcClient::connect_with(
            self.addr,
            self.service,
            DEFAULT_USER,
            self.config.tls.as_ref(),
        )
        .and_then(|c| c.set_timeout(Some(self.config.timeout)).map(|()| c))
        .map_err(|e| self.unreachable(&e.to_string()))?;
        let client = Arc::new(client);
        *slot = Some(Arc::clone(&client));
        Ok(client)
    }

    pub fn unreachable(&self, why: &str) -> Error {
        Error::storage(format!("server {}: {why}", self.name))
    }

    /// Calls `method`; the server's exception comes back as the matching error
    /// (NotServingRegionException as NotServingRegion), anything else as an I/O error naming
    /// the server, after which the next call connects again.
    pub fn call<Q: Message, R: Message + Default>(&self, method: &str, request: &Q) -> Result<R> {
        let client = self.client()?;
        client.call(method, request).map_err(|e| match e {
            RpcError::Remote { class, message } => {
                let short = class.rsplit('.').next().unwrap_or(&class);
                match short {
                    "NotServingRegionException" => Error::NotServingRegion(message),
                    "ConstraintException" => Error::Refused(message),
                    "IllegalArgumentException" => Error::InvalidArgument(message),
                    _ => self.unreachable(&format!("{class}: {message}")),
                }
            }
            other => {
                self.client
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                self.unreachable(&other.to_string())
            }
        })
    }
}
