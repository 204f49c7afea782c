#![no_main]
//! Arbitrary bytes into the store file data block decoder: an error is fine, a panic is a bug.

libfuzzer_sys::fuzz_target!(|data: &[u8]| basalt_storefile::fuzzing::data_block(data));
