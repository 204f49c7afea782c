//! ExecService: coprocessor calls on a region. Basalt serves the aggregation endpoint
//! (`aggregate`) and HBase's `MultiRowMutationService.MutateRows`, the atomic change of several rows of one region that
//! HBase's master makes to `hbase:meta` (and Basalt's, when meta is on another server): one
//! sequence id, one WAL record, all rows visible at once. Other services are the endpoints of
//! the table's coprocessor modules (`basalt-coprocessor`), or UnknownProtocolException.

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
        if service == "AggregateService" {
            return self.aggregate(req, user);
        }
        if service != MULTI_ROW_MUTATION {
            return self.module_endpoint(req, service);
        }
        if call.method_name != "MutateRows" {
            return Err(exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                format!(
                    "No registered coprocessor service {}.{} (Basalt serves \
                     {MULTI_ROW_MUTATION}.MutateRows and AggregateService)",
                    call.service_name, call.method_name
                ),
                true,
            ));
        }
        let region = self.region(Some(&req.region))?;
        let rows = decode::<MutateRowsRequest>(Some(&call.request))?;
        if !rows.condition.is_empty() {
            return Err(refused(
                "MutateRowsRequest.condition",
                "Basalt's MutateRows applies its rows unconditionally",
            ));
        }
        // The request may name its region again (HBase 2.4+); it must be the call's.
        if let Some(named) = &rows.region {
            let same = self
                .rs
                .region_named(&named.value)
                .is_some_and(|r| r.encoded_name() == region.encoded_name());
            if !same {
                return Err(refused(
                    "MutateRowsRequest.region",
                    "it names another region than the ExecService call's",
                ));
            }
        }
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
        // A retry with the same nonce (its answer lost) is not applied again.
        let nonce = Nonce {
            group: rows.nonce_group.unwrap_or(0),
            nonce: rows.nonce.unwrap_or(NO_NONCE),
        };
        self.at_most_once(
            nonce,
            mutations,
            |mutations| {
                region
                    .mutate_rows(&mutations, wanted)
                    .map_err(|e| from_error(&e))
            },
            |_| (true, None),
            |_, _, _| Ok(()),
        )?;
        Ok(CoprocessorServiceResponse {
            region: req.region.clone(),
            value: NameBytesPair {
                name: "hbase.pb.MutateRowsResponse".into(),
                value: Some(MutateRowsResponse {}.encode_to_vec()),
            },
        }
        .encode_to_vec())
    }

    /// A call to the endpoint a coprocessor module of the region's table serves. As with
    /// HBase's default (`hbase.security.exec.permission.checks` off), no permission beyond
    /// reaching the region is checked.
    fn module_endpoint(&self, req: &CoprocessorServiceRequest, service: &str) -> Outcome {
        let call = &req.call;
        let region = self.region(Some(&req.region))?;
        let served = region
            .observer()
            .and_then(|o| o.endpoint(service, &call.method_name, &call.request));
        let Some(answer) = served else {
            return Err(exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                format!(
                    "No registered coprocessor service {}.{} (Basalt serves \
                     {MULTI_ROW_MUTATION}.MutateRows, AggregateService and the endpoints of \
                     the table's coprocessor modules)",
                    call.service_name, call.method_name
                ),
                true,
            ));
        };
        let value = answer.map_err(|e| from_error(&e))?;
        Ok(CoprocessorServiceResponse {
            region: req.region.clone(),
            value: NameBytesPair {
                name: format!("{service}.{}", call.method_name),
                value: Some(value),
            },
        }
        .encode_to_vec())
    }
}
