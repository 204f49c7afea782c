//! AdminService on a cluster's master process: HBase's masters answer the AdminService calls
//! about the server itself, and Basalt's serves the one an operator sends every server,
//! UpdateConfiguration (`update_config`, `update_all_config`), and GetServerInfo. A master
//! holds no regions, so the region calls are refused by name.

use std::sync::Arc;

use basalt_common::Bytes;
use basalt_common::site::LiveSettings;
use basalt_proto::pb::{self, ExceptionResponse, GetServerInfoResponse, ServerInfo};
use basalt_proto::service::Service;
use basalt_proto::{decode, exception, from_error};
use prost::Message;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

#[derive(Debug)]
pub struct MasterAdminService {
    settings: Arc<LiveSettings>,
    /// `host,port,startcode`.
    name: basalt_common::ServerName,
}

impl MasterAdminService {
    pub fn new(settings: Arc<LiveSettings>, name: basalt_common::ServerName) -> Self {
        MasterAdminService { settings, name }
    }
}

impl Service for MasterAdminService {
    fn name(&self) -> &'static str {
        "AdminService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        _cell_block: &Bytes,
        _caller: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        Some(match method {
            "UpdateConfiguration" => {
                decode::<pb::UpdateConfigurationRequest>(param).and_then(|_| {
                    self.settings
                        .update(&format!("master {}", self.name))
                        .map_err(|e| from_error(&e))?;
                    Ok(pb::UpdateConfigurationResponse {}.encode_to_vec())
                })
            }
            "GetServerInfo" => Ok(GetServerInfoResponse {
                server_info: ServerInfo {
                    server_name: {
                        let (host, port) = self.name.host_and_port().unwrap_or(("", 0));
                        pb::ServerName {
                            host_name: host.to_owned(),
                            port: Some(u32::from(port)),
                            start_code: u64::try_from(self.name.start_code).ok(),
                        }
                    },
                    webui_port: None,
                },
            }
            .encode_to_vec()),
            _ => Err(exception(
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                format!("{method}: a master holds no regions; ask a region server"),
                true,
            )),
        })
    }
}
