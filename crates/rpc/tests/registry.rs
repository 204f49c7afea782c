//! What HBase's RpcConnectionRegistry asks instead of reading ZooKeeper: the `Regist`
//! preamble answered with the cluster id (call id -1), and ClientMetaService's calls.

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use basalt_embedded::Connection;
use basalt_embedded::remote::RpcClient;
use basalt_rpc::frame::{REGISTRY_PREAMBLE, read_response};
use basalt_rpc::pb;
use prost::Message;

mod support;

#[test]
fn the_registry_preamble_and_client_meta_service_describe_the_cluster() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let cluster_id = conn.engine().master().cluster_id.clone();
    assert!(!cluster_id.is_empty());

    let mut stream = TcpStream::connect(server.local_addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(REGISTRY_PREAMBLE).unwrap();
    let (header, message) = read_response(&mut stream, 1 << 20).unwrap();
    assert_eq!(header.call_id, Some(u32::MAX), "answered on call id -1");
    let answer = pb::GetConnectionRegistryResponse::decode(&message.unwrap()[..]).unwrap();
    assert_eq!(answer.cluster_id, cluster_id);

    let meta = RpcClient::connect(server.local_addr(), "ClientMetaService").unwrap();
    let id: pb::GetClusterIdResponse =
        support::call(&meta, "GetClusterId", &pb::GetClusterIdRequest {}).unwrap();
    assert_eq!(id.cluster_id.as_deref(), Some(cluster_id.as_str()));
    let active: pb::GetActiveMasterResponse =
        support::call(&meta, "GetActiveMaster", &pb::GetActiveMasterRequest {}).unwrap();
    let master = active.server_name.unwrap();
    assert_eq!(master.port, Some(u32::from(server.local_addr().port())));
    let located: pb::GetMetaRegionLocationsResponse = support::call(
        &meta,
        "GetMetaRegionLocations",
        &pb::GetMetaRegionLocationsRequest {},
    )
    .unwrap();
    assert_eq!(located.meta_locations.len(), 1);
    let location = &located.meta_locations[0];
    assert_eq!(location.region_info.table_name.qualifier, b"meta");
    assert_eq!(
        location.server_name.as_ref().unwrap().port,
        Some(u32::from(server.local_addr().port()))
    );
    let nodes: pb::GetBootstrapNodesResponse =
        support::call(&meta, "GetBootstrapNodes", &pb::GetBootstrapNodesRequest {}).unwrap();
    assert_eq!(nodes.server_name, vec![master]);
    server.shutdown();
}
