//! HBase's aggregation endpoint, built in: `AggregateService` (GetMax, GetMin, GetSum,
//! GetRowNum, GetAvg, GetStd, GetMedian) called through ExecService on one region, as HBase's
//! AggregateImplementation answers it, so HBase's AggregationClient and Basalt's client get
//! each region's part and merge them (`basalt_common::aggregate`). docs/design/aggregation.md.

use basalt_common::aggregate::{Aggregation, Interpreter, RegionAggregate};
use basalt_common::filter::FilterSpec;
use basalt_proto::aggregate as wire;
use basalt_proto::pb::{CoprocessorServiceRequest, CoprocessorServiceResponse, NameBytesPair};

use super::*;

impl ClientService {
    pub(super) fn aggregate(
        &self,
        req: &CoprocessorServiceRequest,
        user: Option<&User>,
    ) -> Outcome {
        let call = &req.call;
        let what = Aggregation::from_method(&call.method_name).ok_or_else(|| {
            exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                format!(
                    "AggregateService has no method {} (GetMax, GetMin, GetSum, GetRowNum, \
                     GetAvg, GetStd, GetMedian)",
                    call.method_name
                ),
                true,
            )
        })?;
        let region = self.region(Some(&req.region))?;
        let r = decode::<pb::AggregateRequest>(Some(&call.request))?;
        let interpreter =
            Interpreter::from_class(&r.interpreter_class_name).map_err(|e| from_error(&e))?;
        // Both interpreters take an EmptyMsg, which is no bytes.
        if r.interpreter_specific_bytes
            .as_ref()
            .is_some_and(|b| !b.is_empty())
        {
            return Err(refused(
                "AggregateRequest.interpreter_specific_bytes",
                "Long and Double interpreters take no initializer",
            ));
        }
        let (mut scan, _) = self.region_scan(&region, &r.scan, None, false, user)?;
        if what != Aggregation::RowNum && scan.families.len() != 1 {
            return Err(exception(
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                format!(
                    "{} needs a scan of exactly one family, not {}",
                    call.method_name,
                    scan.families.len()
                ),
                true,
            ));
        }
        let qualifiers: Vec<Bytes> = scan
            .families
            .values()
            .next()
            .cloned()
            .flatten()
            .map(|q| q.into_iter().collect())
            .unwrap_or_default();
        // Counting rows reads one cell of each when nothing else is asked, as HBase does.
        if what == Aggregation::RowNum && scan.filter.is_none() && qualifiers.is_empty() {
            scan = scan.with_filter(FilterSpec::FirstKeyOnly);
        }
        // The median's second qualifier, if any, weighs each row's value.
        let weight = (what == Aggregation::Median && qualifiers.len() > 1)
            .then(|| qualifiers.last().map(|q| q.to_vec()))
            .flatten();
        let mut agg = RegionAggregate::new(what, interpreter, weight);
        for row in region.scan(&scan).map_err(|e| from_error(&e))? {
            let row = row.map_err(|e| from_error(&e))?;
            agg.row(row.cells.iter().map(|c| (c.qualifier(), c.value())));
        }
        let partial = agg.finish();
        let response = if what == Aggregation::RowNum {
            wire::row_count_response(partial.rows.unwrap_or(0))
        } else {
            wire::response(&partial)
        };
        Ok(CoprocessorServiceResponse {
            region: req.region.clone(),
            value: NameBytesPair {
                name: "hbase.pb.AggregateResponse".into(),
                value: Some(response.encode_to_vec()),
            },
        }
        .encode_to_vec())
    }
}
