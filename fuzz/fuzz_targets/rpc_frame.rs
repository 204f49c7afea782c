#![no_main]
//! Arbitrary bytes as what a native RPC client sends: the preamble, the connection header,
//! then calls; and as a cell block. Every decoder returns an error or a value, never panics, and never allocates
//! past the frame limit.

use basalt_rpc::frame::{read_call, read_connection_header, read_preamble};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let limit = 1 << 16;
    let mut input = data;
    let _ = read_preamble(&mut input);
    let _ = read_connection_header(&mut input, limit);
    for _ in 0..8 {
        if read_call(&mut input, limit).is_err() {
            break;
        }
    }
    // The same bytes as calls from the start, and as a cell block.
    let mut again = data;
    let _ = read_call(&mut again, limit);
    let _ = basalt_rpc::cellblock::decode(&bytes::Bytes::copy_from_slice(data));
});
