//! Counts the rows scanners return from each region, and answers the count through its
//! endpoint: service `RowCounter`, method `scanned`, response the count as 8 big-endian bytes.

use basalt_coprocessor_sdk::{Args, Coprocessor, Row, export, host};

struct ScanCounter;

impl Coprocessor for ScanCounter {
    fn init(_args: &Args) -> Result<Self, String> {
        Ok(ScanCounter)
    }

    fn post_scan_next(&self, _row: &mut Row) -> Result<bool, String> {
        host::counter_add("scanned", 1);
        Ok(true)
    }

    fn endpoint(&self, method: &str, _request: &[u8]) -> Result<Vec<u8>, String> {
        match method {
            "scanned" => Ok(host::counter_add("scanned", 0).to_be_bytes().to_vec()),
            other => Err(format!("RowCounter has no method {other}")),
        }
    }
}

export!(
    ScanCounter,
    [post_scan_next, endpoint],
    service = "RowCounter"
);
