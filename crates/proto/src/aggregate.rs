//! The aggregation endpoint's wire form (Aggregate.proto): a region's [`Partial`] as the
//! AggregateResponse HBase's AggregateImplementation sends (values as the interpreter's
//! LongMsg or DoubleMsg, the row count as 8 big-endian bytes), and back, for the caller that
//! merges the regions' answers.

use basalt_common::aggregate::{Interpreter, Number, Partial};
use prost::Message;

use crate::pb;

/// The service's name in a CoprocessorServiceCall.
pub const SERVICE: &str = "hbase.pb.AggregateService";

fn value_bytes(v: Number) -> Vec<u8> {
    match v {
        Number::Long(l) => pb::LongMsg { long_msg: l }.encode_to_vec(),
        Number::Double(d) => pb::DoubleMsg { double_msg: d }.encode_to_vec(),
    }
}

/// A region's answer on the wire.
pub fn response(p: &Partial) -> pb::AggregateResponse {
    pb::AggregateResponse {
        first_part: p.values.iter().map(|v| value_bytes(*v)).collect(),
        second_part: p.rows.map(|r| r.to_be_bytes().to_vec()),
    }
}

/// A region's answer read back; an undecodable part names what it is.
pub fn partial(
    interpreter: Interpreter,
    r: &pb::AggregateResponse,
    row_count_only: bool,
) -> Result<Partial, String> {
    let values = if row_count_only {
        Vec::new()
    } else {
        r.first_part
            .iter()
            .map(|b| match interpreter {
                Interpreter::Long => pb::LongMsg::decode(&b[..])
                    .map(|m| Number::Long(m.long_msg))
                    .map_err(|e| format!("an aggregate's LongMsg: {e}")),
                Interpreter::Double => pb::DoubleMsg::decode(&b[..])
                    .map(|m| Number::Double(m.double_msg))
                    .map_err(|e| format!("an aggregate's DoubleMsg: {e}")),
            })
            .collect::<Result<_, _>>()?
    };
    let count = |b: &[u8]| {
        <[u8; 8]>::try_from(b)
            .map(i64::from_be_bytes)
            .map_err(|_| format!("an aggregate's row count is {} bytes, not 8", b.len()))
    };
    // GetRowNum's count is its first part; the others' is the second.
    let rows = if row_count_only {
        r.first_part.first().map(|b| count(b)).transpose()?
    } else {
        r.second_part.as_deref().map(count).transpose()?
    };
    Ok(Partial { values, rows })
}

/// GetRowNum sends its count as the first part (and no values).
pub fn row_count_response(rows: i64) -> pb::AggregateResponse {
    pb::AggregateResponse {
        first_part: vec![rows.to_be_bytes().to_vec()],
        second_part: None,
    }
}
