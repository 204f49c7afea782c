#![no_main]
//! Arbitrary bytes as a Thrift message, in both protocols: a message or an error, never a
//! panic, never an allocation past the byte budget.

use basalt_thrift::protocol::{Protocol, Reader, TType};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let mut r = Reader::new(data, protocol, 1 << 16);
        if r.message_begin().is_ok() {
            let _ = r.read_struct();
        }
        let mut r = Reader::new(data, protocol, 1 << 16);
        if r.message_begin().is_ok() {
            let _ = r.skip(TType::Struct);
        }
    }
});
