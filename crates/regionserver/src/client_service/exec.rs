//! ExecService: coprocessor calls on a region. Basalt serves HBase's
//! `MultiRowMutationService.MutateRows`, the atomic change of several rows of one region that
//! HBase's master makes to `hbase:meta` (and Basalt's, when meta is on another server): one
//! sequence id, one WAL record, all rows visible at once. Other services are
//! UnknownProtocolException.

use basalt_common::ops::CheckAction;
use basalt_proto::pb::{
    CoprocessorServiceRequest, CoprocessorServiceResponse, MutateRowsRequest, MutateRowsResponse,
    NameBytesPair,
};
use basalt_region::RowMutation;

use super::*;

const MULTI_ROW_MUTATION: &str = "MultiRowMutationService";

fn strength(d: Durability) -> u8 {
    match d {
        Durability::UseDefault => 0,
        Durability::SkipWal => 1,
        Durability::AsyncWal => 2,
        Durability::SyncWal => 3,
        Durability::FsyncWal => 4,
    }
}

impl ClientService {
    pub(super) fn exec_service(
        &self,
        req: &CoprocessorServiceRequest,
        user: Option<&User>,
    ) -> Outcome {
        let call = &req.call;
        let service = call.service_name.rsplit('.').next().unwrap_or_default();
        if service != MULTI_ROW_MUTATION || call.method_name != "MutateRows" {
            return Err(exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                format!(
                    "No registered coprocessor service {}.{} (Basalt serves {MULTI_ROW_MUTATION}.MutateRows)",
                    call.service_name, call.method_name
                ),
                true,
            ));
        }
        let region = self.region(Some(&req.region))?;
        let rows = decode::<MutateRowsRequest>(Some(&call.request))?;
        let mut mutations = Vec::with_capacity(rows.mutation_request.len());
        // The strongest durability any of them asks for (a catalog change asks for FSYNC_WAL).
        let mut wanted = Durability::UseDefault;
        for m in &rows.mutation_request {
            let (row, op) = action(m, &[])?;
            holds(&region, &row)?;
            // As any write: WRITE on the table (hbase:meta's and hbase:acl's writers are the
            // cluster's servers, superusers).
            self.may_write(user, &region, &op)?;
            let asked = durability(m.durability);
            if strength(asked) > strength(wanted) {
                wanted = asked;
            }
            mutations.push(match op {
                CheckAction::Put(p) => RowMutation::Put(p),
                CheckAction::Delete(d) => RowMutation::Delete(d),
                _ => {
                    return Err(unsupported(
                        "a MutateRows call with anything but puts and deletes",
                    ));
                }
            });
        }
        region
            .mutate_rows(&mutations, wanted)
            .map_err(|e| from_error(&e))?;
        Ok(CoprocessorServiceResponse {
            region: req.region.clone(),
            value: NameBytesPair {
                name: "hbase.pb.MutateRowsResponse".into(),
                value: Some(MutateRowsResponse {}.encode_to_vec()),
            },
        }
        .encode_to_vec())
    }
}
