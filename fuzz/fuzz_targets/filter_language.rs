#![no_main]
//! Arbitrary text parsed as HBase's filter language: a filter or an error naming the
//! position, never a panic.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = basalt_common::filter::parse_filter(text);
    }
});
