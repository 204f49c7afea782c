#![no_main]
//! Arbitrary bytes into the store file store file decoder: an error is fine, a panic is a bug.

libfuzzer_sys::fuzz_target!(|data: &[u8]| basalt_storefile::fuzzing::store_file(data));
