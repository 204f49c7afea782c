//! ClientMetaService (HBase's Registry.proto): what HBase's RpcConnectionRegistry asks a
//! cluster's server instead of reading ZooKeeper: the cluster id, the active master, where
//! `hbase:meta` is served, and servers to ask next time. Served beside MasterService, from the
//! same master.

use std::sync::Arc;

use basalt_common::Bytes;
use basalt_common::acl::User;
use basalt_proto::pb;
use basalt_proto::schema::region_info_pb;
use basalt_proto::service::{Outcome, Service};
use prost::Message;

use super::MasterService;

/// ClientMetaService over a master's MasterService.
#[derive(Debug)]
pub struct ClientMetaService(Arc<MasterService>);

impl ClientMetaService {
    pub fn new(master: Arc<MasterService>) -> ClientMetaService {
        ClientMetaService(master)
    }
}

impl MasterService {
    /// Where each of `hbase:meta`'s regions is served.
    fn meta_locations(&self) -> Vec<pb::RegionLocation> {
        let tables = self.master.tables();
        let Some(meta) = tables.values().find(|t| t.name.is_meta()) else {
            return Vec::new();
        };
        meta.placed()
            .iter()
            .map(|p| pb::RegionLocation {
                region_info: region_info_pb(&p.info),
                server_name: Some(self.pb_server(p.server.name())),
                seq_num: 0,
            })
            .collect()
    }
}

impl Service for ClientMetaService {
    fn name(&self) -> &'static str {
        "ClientMetaService"
    }

    /// Every method takes an empty request; none needs a permission (HBase's is open to all
    /// callers, as a ZooKeeper read is).
    fn call(
        &self,
        method: &str,
        _param: Option<&[u8]>,
        _cell_block: &Bytes,
        _caller: Option<&User>,
    ) -> Option<Outcome> {
        let m = &self.0;
        let answer = match method {
            "GetClusterId" => pb::GetClusterIdResponse {
                cluster_id: Some(m.master.cluster_id.clone()),
            }
            .encode_to_vec(),
            "GetActiveMaster" => pb::GetActiveMasterResponse {
                server_name: Some(m.master_name()),
            }
            .encode_to_vec(),
            "GetMasters" => pb::GetMastersResponse {
                master_servers: vec![pb::GetMastersResponseEntry {
                    server_name: m.master_name(),
                    is_active: true,
                }],
            }
            .encode_to_vec(),
            "GetMetaRegionLocations" => pb::GetMetaRegionLocationsResponse {
                meta_locations: m.meta_locations(),
            }
            .encode_to_vec(),
            // The servers that answer these calls: this master (a cluster's region servers
            // serve no ClientMetaService).
            "GetBootstrapNodes" => pb::GetBootstrapNodesResponse {
                server_name: vec![m.master_name()],
            }
            .encode_to_vec(),
            _ => return None,
        };
        Some(Ok(answer))
    }
}
