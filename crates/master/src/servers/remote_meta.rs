//! `hbase:meta` on another server, as a cluster's master reads and writes it: scans through
//! ClientService, and each catalog change as one MultiRowMutationService.MutateRows call
//! (ExecService), atomic and synced there, as HBase's master writes meta.

use prost::Message;

use basalt_common::{Durability, Result, RowResult, ServerName};
use basalt_proto::ops::{delete_pb, pb_durability, put_pb, row_result};
use basalt_proto::pb::{
    self, CoprocessorServiceCall, CoprocessorServiceRequest, CoprocessorServiceResponse,
    MutateRowsRequest, ScanRequest, ScanResponse,
};
use basalt_proto::{META_REGION, RAW_ATTRIBUTE, region};
use basalt_region::RowMutation;

use super::link::{Link, LinkConfig};
use crate::meta::MetaStore;

/// Rows one scan call brings back.
const BATCH: u32 = 1000;

/// The meta region (or another one: [`RemoteMeta::region`]) on the server `name`.
#[derive(Debug)]
pub struct RemoteMeta {
    link: Link,
    region: Vec<u8>,
}

impl RemoteMeta {
    pub fn new(name: ServerName, config: LinkConfig) -> Result<Self> {
        Self::region(name, config, META_REGION.to_vec())
    }

    /// The region named `region` on the server `name` (rows of a system table the master
    /// keeps, as `hbase:acl`'s).
    pub fn region(name: ServerName, config: LinkConfig, region: Vec<u8>) -> Result<Self> {
        Ok(RemoteMeta {
            link: Link::new(name, "ClientService", config)?,
            region,
        })
    }

    /// The server holding meta.
    pub fn server(&self) -> &ServerName {
        &self.link.name
    }

    /// Every row `scan` returns, in batches.
    fn scan(&self, scan: pb::Scan) -> Result<Vec<RowResult>> {
        let mut out = Vec::new();
        let mut request = ScanRequest {
            region: Some(region(&self.region)),
            scan: Some(scan),
            number_of_rows: Some(BATCH),
            ..ScanRequest::default()
        };
        loop {
            let response: ScanResponse = self.link.call("Scan", &request)?;
            out.extend(response.results.into_iter().map(row_result));
            let more = response.more_results.unwrap_or(false)
                && response.more_results_in_region.unwrap_or(true);
            match response.scanner_id {
                Some(id) if more => {
                    request = ScanRequest {
                        scanner_id: Some(id),
                        number_of_rows: Some(BATCH),
                        ..ScanRequest::default()
                    };
                }
                Some(id) => {
                    let close = ScanRequest {
                        scanner_id: Some(id),
                        close_scanner: Some(true),
                        number_of_rows: Some(0),
                        ..ScanRequest::default()
                    };
                    let _: Result<ScanResponse> = self.link.call("Scan", &close);
                    return Ok(out);
                }
                None => return Ok(out),
            }
        }
    }
}

impl MetaStore for RemoteMeta {
    fn mutate_rows(&self, mutations: &[RowMutation]) -> Result<()> {
        let fsync = Some(pb_durability(Durability::FsyncWal));
        let mutation_request: Vec<pb::MutationProto> = mutations
            .iter()
            .map(|m| {
                let mut pb = match m {
                    RowMutation::Put(p) => put_pb(p),
                    RowMutation::Delete(d) => delete_pb(d),
                };
                pb.durability = fsync;
                pb
            })
            .collect();
        let Some(row) = mutation_request.first().and_then(|m| m.row.clone()) else {
            return Ok(());
        };
        let request = MutateRowsRequest {
            mutation_request,
            ..MutateRowsRequest::default()
        };
        let _: CoprocessorServiceResponse = self.link.call(
            "ExecService",
            &CoprocessorServiceRequest {
                region: region(&self.region),
                call: CoprocessorServiceCall {
                    row,
                    service_name: "hbase.pb.MultiRowMutationService".into(),
                    method_name: "MutateRows".into(),
                    request: request.encode_to_vec(),
                },
            },
        )?;
        Ok(())
    }

    fn scan_family(&self, family: &[u8]) -> Result<Vec<RowResult>> {
        self.scan(pb::Scan {
            column: vec![pb::Column {
                family: family.to_vec(),
                qualifier: Vec::new(),
            }],
            ..pb::Scan::default()
        })
    }

    fn newest_timestamp(&self) -> Result<i64> {
        let rows = self.scan(pb::Scan {
            attribute: vec![pb::NameBytesPair {
                name: RAW_ATTRIBUTE.into(),
                value: Some(vec![0xff]),
            }],
            max_versions: Some(u32::MAX),
            ..pb::Scan::default()
        })?;
        Ok(rows
            .iter()
            .flat_map(|r| r.cells.iter().map(|c| c.timestamp))
            .max()
            .unwrap_or(0))
    }
}
