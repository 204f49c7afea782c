//! The descriptive representations: table lists, versions, cluster status, regions and
//! namespaces, each in the forms HBase's REST server offers.

use basalt_client::{ClusterSummary, NamespaceDescriptor, RegionSummary};
use serde_json::{Value, json};

use crate::cellset::b64;
use crate::media::{Media, RestError};
use crate::{pb, xml};

/// The REST API's version, as HBase's server reports it.
pub const REST_VERSION: &str = "0.0.3";

fn json_bytes(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// `GET /` and `/namespaces/<ns>/tables`.
pub fn table_list(names: &[String], media: Media) -> Vec<u8> {
    match media {
        Media::Json => json_bytes(&json!({
            "table": names.iter().map(|n| json!({"name": n})).collect::<Vec<_>>()
        })),
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("TableList");
            for n in names {
                w.open("table").attr("name", n).close();
            }
            w.finish().into_bytes()
        }
        m if m.is_protobuf() => pb::encode(&pb::TableList {
            name: names.to_vec(),
        }),
        _ => names
            .iter()
            .map(|n| format!("{n}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

/// `GET /version`.
pub fn version(media: Media) -> Vec<u8> {
    let server = format!("basalt {}", env!("CARGO_PKG_VERSION"));
    let os = format!("{} {}", std::env::consts::OS, std::env::consts::ARCH);
    let runtime = "none (Rust, no JVM)";
    let jersey = "none (axum)";
    match media {
        Media::Json => json_bytes(&json!({
            "REST": REST_VERSION, "JVM": runtime, "OS": os, "Server": server, "Jersey": jersey
        })),
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("Version")
                .attr("REST", REST_VERSION)
                .attr("JVM", runtime)
                .attr("OS", &os)
                .attr("Server", &server)
                .attr("Jersey", jersey)
                .close();
            w.finish().into_bytes()
        }
        m if m.is_protobuf() => pb::encode(&pb::Version {
            rest_version: Some(REST_VERSION.into()),
            jvm_version: Some(runtime.into()),
            os_version: Some(os),
            server_version: Some(server),
            jersey_version: Some(jersey.into()),
        }),
        _ => format!(
            "rest {REST_VERSION} [JVM: {runtime}] [OS: {os}] [Server: {server}] [Jersey: {jersey}]\n"
        )
        .into_bytes(),
    }
}

/// `GET /version/cluster`: the HBase version the cluster speaks.
pub fn cluster_version(media: Media) -> Vec<u8> {
    let v = basalt_client::HBASE_VERSION;
    match media {
        Media::Json => json_bytes(&json!({ "Version": v })),
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("ClusterVersion").attr("Version", v).close();
            w.finish().into_bytes()
        }
        _ => format!("{v}\n").into_bytes(),
    }
}

/// `host:port` of a `host,port,startcode` server name.
pub fn host_port(server: &str) -> String {
    let mut parts = server.split(',');
    match (parts.next(), parts.next()) {
        (Some(h), Some(p)) => format!("{h}:{p}"),
        _ => server.to_owned(),
    }
}

fn start_code(server: &str) -> i64 {
    server
        .rsplit(',')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

fn mb(bytes: u64) -> i32 {
    i32::try_from(bytes >> 20).unwrap_or(i32::MAX)
}

/// `GET /status/cluster`.
pub fn cluster_status(s: &ClusterSummary, media: Media) -> Vec<u8> {
    let requests: u64 = s
        .servers
        .iter()
        .flat_map(|n| &n.regions)
        .map(|r| r.read_requests + r.write_requests)
        .sum();
    let average = if s.live_servers == 0 {
        0.0
    } else {
        s.regions as f64 / s.live_servers as f64
    };
    let regions = i32::try_from(s.regions).unwrap_or(i32::MAX);
    let nodes: Vec<pb::Node> = s
        .servers
        .iter()
        .map(|n| pb::Node {
            name: host_port(&n.name),
            start_code: Some(start_code(&n.name)),
            requests: Some(
                n.regions
                    .iter()
                    .map(|r| r.read_requests + r.write_requests)
                    .sum::<u64>() as i64,
            ),
            heap_size_mb: Some(0),
            max_heap_size_mb: Some(0),
            regions: n
                .regions
                .iter()
                .map(|r| pb::RegionLoad {
                    name: r.name.to_vec(),
                    stores: Some(i32::try_from(r.stores).unwrap_or(i32::MAX)),
                    storefiles: Some(i32::try_from(r.store_files).unwrap_or(i32::MAX)),
                    storefile_size_mb: Some(mb(r.store_file_size)),
                    mem_store_size_mb: Some(mb(r.memstore_size)),
                    storefile_index_size_kb: Some(0),
                    read_requests_count: Some(r.read_requests as i64),
                    write_requests_count: Some(r.write_requests as i64),
                })
                .collect(),
        })
        .collect();
    match media {
        m if m.is_protobuf() => pb::encode(&pb::StorageClusterStatus {
            live_nodes: nodes,
            dead_nodes: s.dead.clone(),
            regions: Some(regions),
            requests: Some(requests as i64),
            average_load: Some(average),
        }),
        Media::Json => {
            let live: Vec<Value> = nodes
                .iter()
                .map(|n| {
                    json!({
                        "name": n.name, "startCode": n.start_code, "requests": n.requests,
                        "heapSizeMB": n.heap_size_mb, "maxHeapSizeMB": n.max_heap_size_mb,
                        "Region": n.regions.iter().map(|r| json!({
                            "name": b64(&r.name), "stores": r.stores, "storefiles": r.storefiles,
                            "storefileSizeMB": r.storefile_size_mb,
                            "memStoreSizeMB": r.mem_store_size_mb,
                            "storefileIndexSizeKB": r.storefile_index_size_kb,
                            "readRequestsCount": r.read_requests_count,
                            "writeRequestsCount": r.write_requests_count,
                        })).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json_bytes(&json!({
                "regions": regions, "requests": requests, "averageLoad": average,
                "LiveNodes": live, "DeadNodes": s.dead,
            }))
        }
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("ClusterStatus")
                .attr("regions", regions)
                .attr("requests", requests)
                .attr("averageLoad", average);
            w.open("LiveNodes");
            for n in &nodes {
                w.open("Node")
                    .attr("name", &n.name)
                    .attr("startCode", n.start_code.unwrap_or(0))
                    .attr("requests", n.requests.unwrap_or(0))
                    .attr("heapSizeMB", 0)
                    .attr("maxHeapSizeMB", 0);
                for r in &n.regions {
                    w.open("Region")
                        .attr("name", b64(&r.name))
                        .attr("stores", r.stores.unwrap_or(0))
                        .attr("storefiles", r.storefiles.unwrap_or(0))
                        .attr("storefileSizeMB", r.storefile_size_mb.unwrap_or(0))
                        .attr("memStoreSizeMB", r.mem_store_size_mb.unwrap_or(0))
                        .attr("readRequestsCount", r.read_requests_count.unwrap_or(0))
                        .attr("writeRequestsCount", r.write_requests_count.unwrap_or(0))
                        .close();
                }
                w.close();
            }
            w.close().open("DeadNodes");
            for d in &s.dead {
                w.leaf("Node", d);
            }
            w.finish().into_bytes()
        }
        _ => {
            let mut out = format!(
                "{} live servers, {} dead servers, {average:.4} average load\n\n{} live servers\n",
                s.live_servers,
                s.dead.len(),
                s.live_servers
            );
            for n in &nodes {
                out.push_str(&format!(
                    "    {} {}\n        requests={}, regions={}\n",
                    n.name,
                    n.start_code.unwrap_or(0),
                    n.requests.unwrap_or(0),
                    n.regions.len()
                ));
                for r in &n.regions {
                    out.push_str(&format!(
                        "        {}\n            stores={}\n            storefiless={}\n            storefileSizeMB={}\n            memstoreSizeMB={}\n            readRequestsCount={}\n            writeRequestsCount={}\n",
                        String::from_utf8_lossy(&r.name),
                        r.stores.unwrap_or(0),
                        r.storefiles.unwrap_or(0),
                        r.storefile_size_mb.unwrap_or(0),
                        r.mem_store_size_mb.unwrap_or(0),
                        r.read_requests_count.unwrap_or(0),
                        r.write_requests_count.unwrap_or(0),
                    ));
                }
            }
            out.push_str(&format!("\n{} dead servers\n", s.dead.len()));
            for d in &s.dead {
                out.push_str(&format!("    {d}\n"));
            }
            out.into_bytes()
        }
    }
}

/// `GET /<table>/regions`.
pub fn table_info(
    table: &str,
    regions: &[RegionSummary],
    default_server: &str,
    media: Media,
) -> Vec<u8> {
    let regions: Vec<pb::RegionInfo> = regions
        .iter()
        .map(|r| pb::RegionInfo {
            name: String::from_utf8_lossy(&r.name).into_owned(),
            start_key: Some(r.start_key.to_vec()),
            end_key: Some(r.end_key.to_vec()),
            id: Some(r.region_id()),
            location: Some(host_port(r.server.as_deref().unwrap_or(default_server))),
        })
        .collect();
    match media {
        m if m.is_protobuf() => pb::encode(&pb::TableInfo {
            name: table.to_owned(),
            regions,
        }),
        Media::Json => json_bytes(&json!({
            "name": table,
            "Region": regions.iter().map(|r| json!({
                "id": r.id, "startKey": b64(r.start_key.as_deref().unwrap_or(b"")),
                "endKey": b64(r.end_key.as_deref().unwrap_or(b"")),
                "location": r.location, "name": r.name,
            })).collect::<Vec<_>>(),
        })),
        _ => {
            let mut w = xml::Writer::new();
            w.open("TableInfo").attr("name", table);
            for r in &regions {
                w.open("Region")
                    .attr("id", r.id.unwrap_or(0))
                    .attr("startKey", b64(r.start_key.as_deref().unwrap_or(b"")))
                    .attr("endKey", b64(r.end_key.as_deref().unwrap_or(b"")))
                    .attr("location", r.location.as_deref().unwrap_or(""))
                    .attr("name", &r.name)
                    .close();
            }
            w.finish().into_bytes()
        }
    }
}

/// `GET /namespaces`.
pub fn namespaces(names: &[String], media: Media) -> Vec<u8> {
    match media {
        m if m.is_protobuf() => pb::encode(&pb::Namespaces {
            namespace: names.to_vec(),
        }),
        Media::Json => json_bytes(&json!({ "Namespace": names })),
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("Namespaces");
            for n in names {
                w.leaf("Namespace", n);
            }
            w.finish().into_bytes()
        }
        _ => names
            .iter()
            .map(|n| format!("{n}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

/// `GET /namespaces/<ns>`: its properties.
pub fn namespace_properties(ns: &NamespaceDescriptor, media: Media) -> Vec<u8> {
    match media {
        m if m.is_protobuf() => pb::encode(&pb::NamespaceProperties {
            props: ns
                .configuration
                .iter()
                .map(|(k, v)| pb::Property {
                    key: k.clone(),
                    value: v.clone(),
                })
                .collect(),
        }),
        Media::Json => json_bytes(&json!({ "properties": ns.configuration })),
        Media::Xml => {
            let mut w = xml::Writer::new();
            w.open("NamespaceProperties").open("properties");
            for (k, v) in &ns.configuration {
                w.open("entry").leaf("key", k).leaf("value", v).close();
            }
            w.finish().into_bytes()
        }
        _ => ns
            .configuration
            .iter()
            .map(|(k, v)| format!("{k}={v}\n"))
            .collect::<String>()
            .into_bytes(),
    }
}

/// The properties of a namespace create or update body (empty body: none).
pub fn parse_namespace_properties(
    media: Option<Media>,
    body: &[u8],
) -> Result<Vec<(String, String)>, RestError> {
    let Some(media) = media else {
        return Ok(Vec::new());
    };
    match media {
        m if m.is_protobuf() => {
            let p: pb::NamespaceProperties =
                pb::decode("NamespaceProperties", body).map_err(RestError::bad_request)?;
            Ok(p.props.into_iter().map(|p| (p.key, p.value)).collect())
        }
        Media::Json => {
            let doc: Value = serde_json::from_slice(body).map_err(|e| {
                RestError::bad_request(format!("the NamespaceProperties are not JSON: {e}"))
            })?;
            let Some(Value::Object(props)) = doc.get("properties") else {
                return Ok(Vec::new());
            };
            props
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    other => Ok((k.clone(), other.to_string())),
                })
                .collect()
        }
        Media::Xml => {
            let root = crate::xml::parse(body).map_err(RestError::bad_request)?;
            let mut out = Vec::new();
            if let Some(props) = root.child("properties") {
                for entry in props.children_named("entry") {
                    let key = entry
                        .child("key")
                        .map(|k| k.text.clone())
                        .unwrap_or_default();
                    let value = entry
                        .child("value")
                        .map(|v| v.text.clone())
                        .unwrap_or_default();
                    out.push((key, value));
                }
            }
            Ok(out)
        }
        other => Err(RestError::bad_request(format!(
            "namespace properties cannot be read as {}",
            other.content_type()
        ))),
    }
}
