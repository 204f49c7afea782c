//! The catalog's binary decoders (RegionInfo messages, reference files), fed random bytes and
//! mutations of real values, return an error or a value and never panic (the stable-toolchain
//! counterpart of `fuzz/fuzz_targets/catalog.rs`).

use basalt_embedded::{Bytes, RegionInfo, TableName};
use basalt_region::fuzzing;
use proptest::prelude::*;

fn real_region_info() -> Vec<u8> {
    let table = TableName::parse("ns:t").expect("name");
    RegionInfo::new(
        table,
        Bytes::from_static(b"row0100"),
        Bytes::from_static(b"row0200"),
        1_700_000_000_000,
    )
    .to_pb()
}

fn all_decoders(bytes: &[u8]) {
    fuzzing::reference(bytes);
    let _ = RegionInfo::from_pb(bytes);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        all_decoders(&bytes);
        let mut prefixed = b"PBUF".to_vec();
        prefixed.extend_from_slice(&bytes);
        all_decoders(&prefixed);
    }

    #[test]
    fn mutated_values(
        which in 0usize..2,
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut bytes = if which == 0 {
            real_region_info()
        } else {
            fuzzing::reference_bytes(b"row0100", b"row0200")
        };
        for (at, x) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        let keep = cut.index(bytes.len() + 1);
        all_decoders(&bytes[..keep]);
        all_decoders(&bytes);
    }
}

#[test]
fn real_values_decode() {
    let info = RegionInfo::from_pb(&real_region_info()).expect("decode");
    assert_eq!(&info.start_key[..], b"row0100");
}
