//! What an observer costs a region's put and get, without the network (issue 50): an
//! in-memory region with coprocessors/examples/empty attached (its pre and post hooks of get
//! and put, each doing nothing) against one without. `cargo bench -p basalt-coprocessor`;
//! `scripts/bench-coprocessor.sh` measures the same over the native RPC.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use basalt_common::{ColumnFamilyDescriptor, Get, Put, RegionInfo, SystemClock, TableDescriptor};
use basalt_coprocessor::Env;
use basalt_fs::MemFs;
use basalt_region::{Region, RegionConfig};

fn main() {
    divan::main();
}

fn region(observed: bool) -> Arc<Region> {
    let mut desc = TableDescriptor::named("bench").expect("name");
    desc.memstore_flushsize = 4 * 1024 * 1024 * 1024;
    desc.add_family(ColumnFamilyDescriptor::new(b"cf".to_vec()));
    if observed {
        let module = basalt_coprocessor::testing::example("empty");
        desc.coprocessors
            .push(format!("file://{}|1|", module.display()));
    }
    let region = Arc::new(
        Region::open(
            RegionInfo::whole_table(desc.name.clone(), 1),
            desc,
            Arc::new(SystemClock),
            RegionConfig::default(),
            Arc::new(MemFs::new()),
            std::path::Path::new("/bench"),
        )
        .expect("region"),
    );
    let left_out = Env::new().attach(&region).expect("attach");
    assert!(left_out.is_empty(), "{left_out:?}");
    region
}

fn row(i: u64) -> String {
    format!(
        "user{:020}",
        i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31)
    )
}

#[divan::bench(args = [false, true])]
fn put(bencher: divan::Bencher<'_, '_>, observed: bool) {
    let region = region(observed);
    let next = AtomicU64::new(0);
    bencher.bench_local(|| {
        let i = next.fetch_add(1, Ordering::Relaxed);
        region
            .put(&Put::new(row(i)).add_column("cf", "q", vec![b'v'; 100]))
            .expect("put");
    });
}

#[divan::bench(args = [false, true])]
fn get(bencher: divan::Bencher<'_, '_>, observed: bool) {
    let region = region(observed);
    for i in 0..10_000 {
        region
            .put(&Put::new(row(i)).add_column("cf", "q", vec![b'v'; 100]))
            .expect("put");
    }
    let next = AtomicU64::new(0);
    bencher.bench_local(|| {
        let i = next.fetch_add(1, Ordering::Relaxed) % 10_000;
        region.get(&Get::new(row(i))).expect("get")
    });
}
