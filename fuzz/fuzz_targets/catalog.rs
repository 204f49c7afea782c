#![no_main]
//! Arbitrary bytes read as the catalog's binary values: a region's `PBUF` + RegionInfo message
//! (meta's `info:regioninfo`, `.regioninfo`) and a reference file. An error is fine, a panic
//! is a bug. Half the inputs get the `PBUF` prefix, so the fuzzer reaches the message.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    basalt_region::fuzzing::reference(data);
    let _ = basalt_common::RegionInfo::from_pb(data);
    let mut prefixed = b"PBUF".to_vec();
    prefixed.extend_from_slice(data);
    let _ = basalt_common::RegionInfo::from_pb(&prefixed);
});
