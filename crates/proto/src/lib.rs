//! HBase's protobuf RPC as data: the message types (`pb`, compiled from `proto/`, HBase's field
//! numbers), framing (`frame`), cell blocks (`cellblock`), and the conversions between
//! protobuf and Basalt's types (`filters`, `schema`), with the exceptions calls answer with.
//! Both sides use it: the servers (`basalt-rpc`) and the remote client. Framing:
//! `docs/design/rpc.md`.

pub mod acl;
pub mod aggregate;
pub mod cellblock;
pub mod filters;
pub mod frame;
pub mod ops;
pub mod quota;
pub mod replication;
pub mod rsgroup;
pub mod schema;
pub mod service;

/// The generated protobuf messages (package `hbase.pb`).
#[allow(missing_debug_implementations, clippy::all, reason = "generated code")]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/hbase.pb.rs"));
}

use basalt_common::Error;
use pb::{ExceptionResponse, RegionSpecifier, region_specifier::RegionSpecifierType};
use prost::Message;

/// The HBase version Basalt's native RPC reports (cluster status): the 2.x line whose
/// protocol and behaviour it follows.
pub const HBASE_VERSION: &str = "2.6.0";

/// The name clients give meta's region.
pub const META_REGION: &[u8] = b"hbase:meta,,1";

/// The name of the mutation attribute that carries a cell TTL (HBase's `Mutation.setTTL`):
/// milliseconds as an 8-byte big-endian long.
pub const TTL_ATTRIBUTE: &str = "_ttl";

/// HBase's client asks an Increment or Append to answer with no cells with the attribute
/// `_rr_` = `Bytes.toBytes(false)` (`Mutation.setReturnResults(false)`): one byte, 0 for false.
pub const RETURN_RESULTS_ATTRIBUTE: &str = "_rr_";

/// Whether a mutation with these attributes wants its new cells back (HBase's
/// `Mutation.isReturnResults`: yes unless `_rr_` says false). A value that is not one byte
/// is refused, as HBase's `Bytes.toBoolean` refuses it.
pub fn returns_results(attributes: &[pb::NameBytesPair]) -> Result<bool, ExceptionResponse> {
    match attributes
        .iter()
        .find(|a| a.name == RETURN_RESULTS_ATTRIBUTE)
    {
        None => Ok(true),
        Some(a) => match a.value.as_deref() {
            Some([b]) => Ok(*b != 0),
            other => Err(refused(
                &format!("MutationProto.attribute {RETURN_RESULTS_ATTRIBUTE:?} = {other:?}"),
                "HBase's booleans are one byte",
            )),
        },
    }
}

/// HBase's client marks a Scan whose metrics it collects with this attribute (true); the
/// counts themselves are asked for by `ScanRequest.track_scan_metrics`, which it sends too.
pub const SCAN_METRICS_ATTRIBUTE: &str = "scan.attributes.metrics.enable";

/// HBase's client asks for a raw scan with the attribute `_raw_` = `Bytes.toBytes(true)`
/// (one byte, -1), not with a field of Scan.
pub const RAW_ATTRIBUTE: &str = "_raw_";

/// HBase's client names a read's isolation level with the attribute `_isolationlevel_`: one
/// byte, the level's ordinal (READ_COMMITTED 0, which `Scan` sends by default;
/// READ_UNCOMMITTED 1).
pub const ISOLATION_ATTRIBUTE: &str = "_isolationlevel_";

/// Checks the isolation level among `attributes` (of `owner`), if one is given: both of
/// HBase's are served, READ_UNCOMMITTED as READ_COMMITTED (a read that may see uncommitted
/// cells and sees only committed ones keeps its promise); anything else is refused.
pub fn check_isolation(
    owner: &str,
    attributes: &[pb::NameBytesPair],
) -> Result<(), ExceptionResponse> {
    match attributes.iter().find(|a| a.name == ISOLATION_ATTRIBUTE) {
        None => Ok(()),
        Some(a) => match a.value.as_deref() {
            Some([0]) | Some([1]) => Ok(()),
            other => Err(refused(
                &format!("{owner} {ISOLATION_ATTRIBUTE:?} = {other:?}"),
                "HBase's isolation levels are one byte, 0 (READ_COMMITTED) or 1 (READ_UNCOMMITTED)",
            )),
        },
    }
}

/// An exception for the response header.
pub fn exception(class: &str, message: String, do_not_retry: bool) -> ExceptionResponse {
    ExceptionResponse {
        exception_class_name: Some(class.to_owned()),
        stack_trace: Some(message),
        do_not_retry: Some(do_not_retry),
        ..ExceptionResponse::default()
    }
}

/// A request field Basalt does not serve, refused with HBase's DoNotRetryIOException naming
/// it, never dropped unread (`docs/design/fields.md` lists every field: honoured or refused).
pub fn refused(field: &str, why: &str) -> ExceptionResponse {
    from_error(&refusal(field, why))
}

/// [`refused`] as Basalt's error (a DoNotRetryIOException on the wire).
pub fn refusal(field: &str, why: &str) -> Error {
    Error::Refused(format!("{field} is not supported: {why}"))
}

/// Refuses any attribute of `attributes` (the `attribute` field of `owner`) not in `allowed`:
/// HBase hands attributes to coprocessors, and Basalt runs none that could read another.
pub fn check_attributes(
    owner: &str,
    attributes: &[pb::NameBytesPair],
    allowed: &[&str],
) -> Result<(), ExceptionResponse> {
    match attributes
        .iter()
        .find(|a| !allowed.contains(&a.name.as_str()))
    {
        None => Ok(()),
        Some(a) => Err(refused(
            &format!("{owner} {:?}", a.name),
            &if allowed.is_empty() {
                "Basalt acts on no attribute here".to_owned()
            } else {
                format!("Basalt acts only on {}", allowed.join(", "))
            },
        )),
    }
}

/// The exception for one of Basalt's errors, by its Java class (`Error::java_class`).
pub fn from_error(e: &Error) -> ExceptionResponse {
    let retry = matches!(e.kind(), basalt_common::ErrorKind::Unavailable);
    // HBase's region server wraps an IllegalArgumentException in DoNotRetryIOException.
    let class = match e.java_class() {
        "java.lang.IllegalArgumentException" => "org.apache.hadoop.hbase.DoNotRetryIOException",
        class => class,
    };
    exception(class, with_causes(e), !retry)
}

/// An error's text with what caused it, one `Caused by:` line per cause, as a Java stack
/// trace names its causes (`Error::from_exception` reads them back into `source()`).
fn with_causes(e: &Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(
            "\n{}{}: {c}",
            basalt_common::error::CAUSED_BY,
            basalt_common::error::RUST_CAUSE
        ));
        cause = c.source();
    }
    text
}

/// Decodes a call's parameter; a malformed one is a DoNotRetryIOException.
pub fn decode<M: Message + Default>(param: Option<&[u8]>) -> Result<M, ExceptionResponse> {
    M::decode(param.unwrap_or_default()).map_err(|e| {
        exception(
            "org.apache.hadoop.hbase.DoNotRetryIOException",
            format!("cannot decode the request: {e}"),
            true,
        )
    })
}

/// The region a ClientService request names (Get, Mutate, Scan, ...: their field 1), if it
/// names one: for the slow log, which does not decode the whole request.
pub fn request_region(method: &str, param: &[u8]) -> Option<String> {
    if method == "Multi" {
        return None;
    }
    let r = <pb::RequestRegion as prost::Message>::decode(param).ok()?;
    r.region
        .map(|spec| String::from_utf8_lossy(&spec.value).into_owned())
}

/// A procedure as HBase's Procedure message (its parameters as JSON text in `state_data`).
pub fn procedure_pb(p: &basalt_common::procedure::Procedure) -> pb::Procedure {
    use basalt_common::procedure::State;
    let state = match p.state {
        State::Waiting => pb::ProcedureState::Waiting,
        State::Runnable => pb::ProcedureState::Runnable,
        State::Success => pb::ProcedureState::Success,
        State::Failed => pb::ProcedureState::Failed,
    };
    let params: Vec<String> = p
        .parameters
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), json_string(v)))
        .collect();
    pb::Procedure {
        class_name: p.class_name.clone(),
        proc_id: p.id,
        submitted_time: u64::try_from(p.submitted_ms).unwrap_or(0),
        owner: Some(p.owner.clone()),
        state: state as i32,
        last_update: u64::try_from(p.last_update_ms).unwrap_or(0),
        exception: p.error.as_ref().map(|e| pb::ForeignExceptionMessage {
            source: Some("master".into()),
            generic_exception: Some(pb::GenericExceptionMessage {
                class_name: Some("org.apache.hadoop.hbase.HBaseIOException".into()),
                message: Some(e.clone()),
                error_info: None,
            }),
        }),
        state_data: Some(format!("{{{}}}", params.join(",")).into_bytes()),
        locked: Some(p.state == State::Runnable),
        executed: Some(p.state != State::Waiting),
        ..pb::Procedure::default()
    }
}

/// A procedure from HBase's Procedure message (parameters read back from `state_data`'s
/// flat JSON object of strings, when it holds one).
pub fn procedure(p: &pb::Procedure) -> basalt_common::procedure::Procedure {
    use basalt_common::procedure::{Resource, State};
    let state = match p.state() {
        pb::ProcedureState::Waiting | pb::ProcedureState::WaitingTimeout => State::Waiting,
        pb::ProcedureState::Success => State::Success,
        pb::ProcedureState::Failed | pb::ProcedureState::Rolledback => State::Failed,
        _ => State::Runnable,
    };
    basalt_common::procedure::Procedure {
        id: p.proc_id,
        class_name: p.class_name.clone(),
        owner: p.owner.clone().unwrap_or_default(),
        state,
        submitted_ms: i64::try_from(p.submitted_time).unwrap_or(0),
        last_update_ms: i64::try_from(p.last_update).unwrap_or(0),
        parameters: p
            .state_data
            .as_deref()
            .map(|d| flat_json(&String::from_utf8_lossy(d)))
            .unwrap_or_default(),
        resource: Resource::Table(String::new()),
        error: p
            .exception
            .as_ref()
            .and_then(|e| e.generic_exception.as_ref())
            .and_then(|g| g.message.clone()),
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The pairs of a flat JSON object of strings (`{"a":"b","c":"d"}`), as `procedure_pb`
/// writes them; anything else gives none.
fn flat_json(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut strings = Vec::new();
    let mut chars = text.trim().chars().peekable();
    if chars.next() != Some('{') {
        return out;
    }
    while let Some(c) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut s = String::new();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('u') => {
                        let hex: String = chars.by_ref().take(4).collect();
                        if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
                        {
                            s.push(c);
                        }
                    }
                    Some(c) => s.push(c),
                    None => break,
                },
                c => s.push(c),
            }
        }
        strings.push(s);
    }
    let mut it = strings.into_iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    out
}

/// The Java class names HBase's clients and servers give the slow log's GetLogEntries
/// messages.
pub const SLOW_LOG_REQUEST_CLASS: &str =
    "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponseRequest";
pub const SLOW_LOG_RESPONSES_CLASS: &str =
    "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponses";

/// A slow log filter from HBase's request.
pub fn slow_log_filter(r: &pb::SlowLogResponseRequest) -> basalt_common::slowlog::Filter {
    use pb::slow_log_response_request::{FilterByOperator, LogType};
    basalt_common::slowlog::Filter {
        region: r.region_name.clone(),
        table: r.table_name.clone(),
        client_address: r.client_address.clone(),
        user: r.user_name.clone(),
        and: r.filter_by_operator() == FilterByOperator::And,
        large: r.log_type() == LogType::LargeLog,
        limit: r.limit() as usize,
    }
}

/// A slow log entry as HBase's SlowLogPayload.
pub fn slow_log_payload(c: &basalt_common::slowlog::SlowCall) -> pb::SlowLogPayload {
    use pb::slow_log_payload::Type;
    pb::SlowLogPayload {
        start_time: c.start_time_ms,
        processing_time: i32::try_from(c.processing_ms).unwrap_or(i32::MAX),
        queue_time: i32::try_from(c.queue_ms).unwrap_or(i32::MAX),
        response_size: i64::try_from(c.response_size).unwrap_or(i64::MAX),
        client_address: c.client_address.clone(),
        server_class: "HRegionServer".into(),
        method_name: c.method.clone(),
        call_details: c.call_details(),
        param: None,
        user_name: c.user.clone(),
        region_name: c.region.clone(),
        multi_gets: None,
        multi_mutations: None,
        multi_service_calls: None,
        r#type: (match (c.slow, c.large) {
            (true, true) => Type::All,
            (false, true) => Type::LargeLog,
            _ => Type::SlowLog,
        }) as i32,
        block_bytes_scanned: None,
    }
}

/// A slow log entry from HBase's SlowLogPayload.
pub fn slow_call(p: &pb::SlowLogPayload) -> basalt_common::slowlog::SlowCall {
    use pb::slow_log_payload::Type;
    let kind = p.r#type();
    basalt_common::slowlog::SlowCall {
        start_time_ms: p.start_time,
        processing_ms: u32::try_from(p.processing_time).unwrap_or(0),
        queue_ms: u32::try_from(p.queue_time).unwrap_or(0),
        response_size: u64::try_from(p.response_size).unwrap_or(0),
        client_address: p.client_address.clone(),
        service: match p.call_details.split('$').next().unwrap_or_default() {
            d if d.ends_with("AdminProtos") => "AdminService".into(),
            d if d.ends_with("MasterProtos") => "MasterService".into(),
            _ => "ClientService".into(),
        },
        method: p.method_name.clone(),
        user: p.user_name.clone(),
        region: p.region_name.clone(),
        slow: kind != Type::LargeLog,
        large: kind != Type::SlowLog,
    }
}

/// A server named `host,port,startcode` or `host:port` (no start code: any server there), as
/// MasterService takes it.
pub fn server_name(name: &str) -> basalt_common::Result<pb::ServerName> {
    let bad = || {
        basalt_common::Error::InvalidArgument(format!(
            "{name:?} is not a server name (host,port,startcode)"
        ))
    };
    let (server, start_code) = match basalt_common::ServerName::parse(name) {
        Some(s) => {
            let start_code = u64::try_from(s.start_code).ok();
            (s, start_code)
        }
        None => (basalt_common::ServerName::new(name, 0), None),
    };
    let (host, port) = server.host_and_port().ok_or_else(bad)?;
    Ok(pb::ServerName {
        host_name: host.to_owned(),
        port: Some(u32::from(port)),
        start_code,
    })
}

/// A ServerName as `host,port,startcode`.
pub fn server_text(s: &pb::ServerName) -> String {
    format!(
        "{},{},{}",
        s.host_name,
        s.port.unwrap_or_default(),
        s.start_code.unwrap_or_default()
    )
}

/// The region specifier for a region name.
pub fn region(name: &[u8]) -> RegionSpecifier {
    RegionSpecifier {
        r#type: RegionSpecifierType::RegionName as i32,
        value: name.to_vec(),
    }
}

/// A region's figures as the cluster status and GetRegionLoad carry them (sizes in whole MiB,
/// as HBase reports them).
pub fn region_load(r: &basalt_common::metrics::RegionStatus) -> pb::RegionLoad {
    let mb = |bytes: u64| u32::try_from(bytes >> 20).unwrap_or(u32::MAX);
    pb::RegionLoad {
        region_specifier: region(r.name.as_bytes()),
        stores: u32::try_from(r.stores).ok(),
        storefiles: u32::try_from(r.store_files).ok(),
        store_uncompressed_size_mb: Some(mb(r.store_file_bytes)),
        storefile_size_mb: Some(mb(r.store_file_bytes)),
        mem_store_size_mb: Some(mb(r.memstore_bytes)),
        region_size_mb: Some(mb(r.store_file_bytes + r.memstore_bytes)),
        read_requests_count: Some(r.read_requests),
        write_requests_count: Some(r.write_requests),
        last_major_compaction_ts: u64::try_from(r.last_major_compaction_ms).ok(),
        store_file_bytes: Some(r.store_file_bytes),
    }
}

/// A server's replication figures as its load carries them (HBase's ReplicationLoadSource
/// per queue, ReplicationLoadSink).
pub fn replication_load(
    s: &basalt_common::metrics::ServerStatus,
) -> (Vec<pb::ReplicationLoadSource>, pb::ReplicationLoadSink) {
    let sources = s
        .replication_sources
        .iter()
        .map(|r| {
            let age = u64::try_from(r.age_of_last_shipped_op_ms).unwrap_or(0);
            pb::ReplicationLoadSource {
                peer_id: r.peer.clone(),
                age_of_last_shipped_op: age,
                size_of_log_queue: u32::try_from(r.size_of_log_queue).unwrap_or(u32::MAX),
                time_stamp_of_last_shipped_op: u64::try_from(r.last_shipped_at).unwrap_or(0),
                replication_lag: age,
                time_stamp_of_next_to_replicate: None,
                queue_id: Some(r.queue.clone()),
                recovered: Some(r.recovered),
                running: Some(r.running),
                edits_since_restart: Some(r.edits_read > 0),
                edits_read: Some(r.edits_read),
                o_ps_shipped: Some(r.shipped_ops),
            }
        })
        .collect();
    let sink = &s.replication_sink;
    let sink = pb::ReplicationLoadSink {
        age_of_last_applied_op: u64::try_from(sink.age_of_last_applied_op_ms).unwrap_or(0),
        time_stamps_of_last_applied_op: u64::try_from(sink.last_applied_at).unwrap_or(0),
        timestamp_started: None,
        total_ops_processed: Some(sink.applied_ops),
    };
    (sources, sink)
}

/// A region server's report beside its region loads: its replication figures and the tasks it
/// runs (Basalt's AdminService GetServerReport).
pub fn server_report(s: &basalt_common::metrics::ServerStatus) -> pb::GetServerReportResponse {
    let (source, sink) = replication_load(s);
    pb::GetServerReportResponse {
        source,
        sink: Some(sink),
        tasks: s
            .tasks
            .iter()
            .map(|t| pb::ServerTask {
                description: format!("{}: {}", t.kind, t.description),
                status: "running".into(),
                state: pb::server_task::State::Running as i32,
                start_time: Some(t.started_ms),
                completion_time: None,
            })
            .collect(),
    }
}

/// The figures [`replication_load`] sends, read back (those the messages do not carry are 0).
pub fn replication_status(
    sources: &[pb::ReplicationLoadSource],
    sink: Option<&pb::ReplicationLoadSink>,
) -> (
    Vec<basalt_common::metrics::ReplicationSourceStatus>,
    basalt_common::metrics::ReplicationSinkStatus,
) {
    let sources = sources
        .iter()
        .map(|r| basalt_common::metrics::ReplicationSourceStatus {
            peer: r.peer_id.clone(),
            queue: r.queue_id.clone().unwrap_or_else(|| r.peer_id.clone()),
            recovered: r.recovered.unwrap_or(false),
            running: r.running.unwrap_or(true),
            age_of_last_shipped_op_ms: i64::try_from(r.age_of_last_shipped_op).unwrap_or(0),
            size_of_log_queue: u64::from(r.size_of_log_queue),
            edits_read: r.edits_read.unwrap_or(0),
            shipped_ops: r.o_ps_shipped.unwrap_or(0),
            last_shipped_at: i64::try_from(r.time_stamp_of_last_shipped_op).unwrap_or(0),
            ..Default::default()
        })
        .collect();
    let sink = sink
        .map(|k| basalt_common::metrics::ReplicationSinkStatus {
            applied_ops: k.total_ops_processed.unwrap_or(0),
            age_of_last_applied_op_ms: i64::try_from(k.age_of_last_applied_op).unwrap_or(0),
            last_applied_at: i64::try_from(k.time_stamps_of_last_applied_op).unwrap_or(0),
            ..Default::default()
        })
        .unwrap_or_default();
    (sources, sink)
}

#[cfg(test)]
mod tests {
    use basalt_common::metrics::{ReplicationSourceStatus, ServerStatus, Task};

    #[test]
    fn a_server_report_carries_its_tasks_and_queues_and_reads_back() {
        let status = ServerStatus {
            tasks: vec![Task {
                id: 1,
                kind: "compaction",
                description: "compacting t,,1.abc. f".into(),
                started_ms: 1_700_000_000_000,
            }],
            replication_sources: vec![ReplicationSourceStatus {
                peer: "1".into(),
                queue: "1".into(),
                running: true,
                age_of_last_shipped_op_ms: 42,
                shipped_ops: 7,
                ..ReplicationSourceStatus::default()
            }],
            ..ServerStatus::default()
        };
        let report = super::server_report(&status);
        assert_eq!(report.tasks.len(), 1);
        assert_eq!(
            report.tasks[0].description,
            "compaction: compacting t,,1.abc. f"
        );
        assert_eq!(report.tasks[0].start_time, Some(1_700_000_000_000));
        let (sources, _) = super::replication_status(&report.source, report.sink.as_ref());
        assert_eq!(sources[0].age_of_last_shipped_op_ms, 42);
        assert_eq!(sources[0].shipped_ops, 7);
        assert_eq!(sources[0].queue, "1");
    }
}
