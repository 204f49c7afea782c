#![no_main]
//! Arbitrary bytes read as a WAL segment: an error or a torn tail is fine, a panic is a bug.
//! Inputs get a valid header half the time, so the fuzzer spends its effort on records; the
//! same bytes also go straight to the record body decoder, which checksums otherwise guard.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = basalt_wal::decode_edit(&bytes::Bytes::copy_from_slice(data));
    let mut bytes = Vec::with_capacity(data.len() + basalt_wal::HEADER_LEN);
    if data.first().is_some_and(|b| b & 1 == 1) {
        bytes.extend_from_slice(basalt_wal::MAGIC);
        bytes.extend_from_slice(&basalt_wal::FORMAT_VERSION.to_be_bytes());
    }
    bytes.extend_from_slice(data);
    let _ = basalt_wal::read_segment(&bytes.into(), "fuzz");
});
