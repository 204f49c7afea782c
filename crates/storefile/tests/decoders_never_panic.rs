//! Every store file decoder, fed random bytes and mutations of real files, returns an error
//! or a value and never panics (the stable-toolchain counterpart of `fuzz/`).

use std::path::Path;
use std::sync::Arc;

use basalt_common::{BloomType, Cell, Compression};
use basalt_fs::{FileSystem, MemFs};
use basalt_storefile::fuzzing;
use basalt_storefile::{StoreFileWriter, WriterOptions};
use proptest::prelude::*;

/// A small real store file's bytes.
fn real_file(compression: Compression) -> Vec<u8> {
    let fs = Arc::new(MemFs::new());
    let opts = WriterOptions {
        family: "cf".into(),
        block_size: 128,
        compression,
        bloom: BloomType::RowCol,
        bloom_prefix_len: 0,
        max_index_block: 256,
        max_bloom_chunk: 16,
        compacted_from: Vec::new(),
    };
    let path = Path::new("/f");
    let dyn_fs: Arc<dyn FileSystem> = fs.clone();
    let mut w = StoreFileWriter::create(dyn_fs, path, opts).expect("create");
    for i in 0..60 {
        let cell = Cell::put(
            format!("row{i:03}").as_bytes(),
            b"cf",
            b"q",
            i,
            format!("value {i}").as_bytes(),
        );
        w.append(&cell.with_seq_id(1).with_ttl_ms((i % 3 == 0).then_some(99)))
            .expect("append");
    }
    w.finish().expect("finish");
    basalt_fs::read_all(fs.as_ref(), path)
        .expect("read")
        .to_vec()
}

fn all_decoders(bytes: &[u8]) {
    fuzzing::block(bytes);
    fuzzing::data_block(bytes);
    fuzzing::index(bytes);
    fuzzing::trailer(bytes);
    fuzzing::meta(bytes);
    fuzzing::store_file(bytes);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        all_decoders(&bytes);
    }

    #[test]
    fn mutated_real_files(
        compression in prop::sample::select(vec![Compression::None, Compression::Lz4, Compression::Zstd, Compression::Snappy, Compression::Gz]),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = real_file(compression);
        for (at, value) in flips {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len() + 1));
        }
        all_decoders(&bytes);
    }
}
