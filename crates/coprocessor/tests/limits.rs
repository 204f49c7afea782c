//! A module that loops forever, one that allocates without bound and one that traps: each
//! call is stopped, its caller gets an error naming the module and why, the module is
//! unloaded from that region only, and the region serves on without it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::{
    ColumnFamilyDescriptor, Delete, Error, Get, Put, RegionInfo, SystemClock, TableDescriptor,
};
use basalt_coprocessor::Env;
use basalt_fs::MemFs;
use basalt_region::{Region, RegionConfig};

/// Misbehaves in one way per hook: pre_get loops, pre_put grows its memory without end,
/// pre_delete traps. A bump allocator is enough for a few calls.
const RUNAWAY: &str = r#"
(module
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 1024))
  (func (export "basalt_abi_version") (result i32) (i32.const 1))
  (func (export "basalt_alloc") (param $len i32) (result i32) (local $at i32)
    (local.set $at (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $len)))
    (local.get $at))
  (func (export "basalt_free") (param i32 i32))
  (func (export "basalt_init") (param i32 i32) (result i64) (i64.const 0))
  (func (export "pre_get") (param i32 i32) (result i64)
    (loop $forever (br $forever))
    (i64.const 0))
  (func (export "pre_put") (param i32 i32) (result i64)
    (loop $grow (drop (memory.grow (i32.const 16))) (br $grow))
    (i64.const 0))
  (func (export "pre_delete") (param i32 i32) (result i64) (unreachable)))
"#;

/// A module whose init refuses its arguments: a VETO reply (tag 2) at address 16.
const REFUSING: &str = r#"
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "\02bad arguments")
  (func (export "basalt_abi_version") (result i32) (i32.const 1))
  (func (export "basalt_alloc") (param i32) (result i32) (i32.const 1024))
  (func (export "basalt_free") (param i32 i32))
  (func (export "basalt_init") (param i32 i32) (result i64)
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 14))))
"#;

fn module_file(dir: &Path) -> PathBuf {
    let path = dir.join("runaway.wasm");
    std::fs::write(&path, wat::parse_str(RUNAWAY).expect("valid text")).expect("write module");
    path
}

/// A one-region table `name` with `specs` attached: the region, and the errors of the
/// modules it opened without.
fn open(env: &Arc<Env>, name: &str, specs: &[String]) -> (Arc<Region>, Vec<Error>) {
    let mut desc = TableDescriptor::named(name).expect("name");
    desc.add_family(ColumnFamilyDescriptor::new(b"f".to_vec()));
    desc.coprocessors.extend(specs.iter().cloned());
    let info = RegionInfo::whole_table(desc.name.clone(), 1);
    let dir = PathBuf::from("/regions").join(info.encoded_name());
    let region = Arc::new(
        Region::open(
            info,
            desc,
            Arc::new(SystemClock),
            RegionConfig::default(),
            Arc::new(MemFs::new()),
            &dir,
        )
        .expect("open"),
    );
    let left_out = env.attach(&region).expect("attach");
    (region, left_out)
}

/// A one-region table `name` with the module attached (smaller limits than the defaults,
/// so the test does not wait for them).
fn region(env: &Arc<Env>, module: &Path, name: &str) -> Arc<Region> {
    let spec = format!("file://{}|1|memory=4194304,fuel=10000000", module.display());
    let (region, left_out) = open(env, name, &[spec]);
    assert!(left_out.is_empty(), "{left_out:?}");
    assert!(region.observer().is_some(), "the module was attached");
    region
}

fn coprocessor_error(outcome: basalt_common::Result<impl std::fmt::Debug>, says: &str) {
    match outcome {
        Err(Error::Coprocessor(m)) => {
            assert!(m.contains(says), "{m}");
            assert!(m.contains("runaway.wasm"), "{m}");
            assert!(m.contains("unloaded from region"), "{m}");
        }
        other => panic!("expected a coprocessor error saying {says}, got {other:?}"),
    }
}

#[test]
fn runaway_modules_are_stopped_and_unloaded_from_their_region_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let module = module_file(dir.path());
    let env = Env::new();
    let put = Put::new("r").add_column("f", "q", "v");

    // Loops forever: stopped by its fuel.
    let looping = region(&env, &module, "looping");
    coprocessor_error(looping.get(&Get::new("r")), "ran out of fuel");
    // Unloaded: the region serves on without it.
    assert!(looping.get(&Get::new("r")).unwrap().cells.is_empty());

    // Allocates without bound: stopped at its memory limit.
    let hoarding = region(&env, &module, "hoarding");
    coprocessor_error(hoarding.put(&put), "outgrew its memory");
    hoarding.put(&put).unwrap();
    assert_eq!(hoarding.get(&Get::new("r")).unwrap().cells.len(), 1);

    // Traps.
    let trapping = region(&env, &module, "trapping");
    coprocessor_error(trapping.delete(&Delete::new("r")), "trapped");
    trapping.delete(&Delete::new("r")).unwrap();

    // A region that ran none of it still has it: each fault unloaded it from one region.
    let untouched = region(&env, &module, "untouched");
    coprocessor_error(untouched.delete(&Delete::new("r")), "trapped");
}

#[test]
fn a_module_that_cannot_load_leaves_the_region_serving() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.wasm");
    std::fs::write(&bad, b"not a module").expect("write");
    let bare = dir.path().join("bare.wasm");
    std::fs::write(
        &bare,
        wat::parse_str("(module (memory (export \"memory\") 1))").expect("wat"),
    )
    .expect("write");
    let refusing = dir.path().join("refusing.wasm");
    std::fs::write(&refusing, wat::parse_str(REFUSING).expect("wat")).expect("write");
    let env = Env::new();
    let (region, left_out) = open(
        &env,
        "t",
        &[
            format!("file://{}|1|", bad.display()),
            "file:///nowhere/m.wasm|1|".to_owned(),
            format!("file://{}|1|", bare.display()),
            format!("file://{}|1|", refusing.display()),
        ],
    );
    let said: Vec<String> = left_out.iter().map(ToString::to_string).collect();
    assert_eq!(said.len(), 4, "{said:?}");
    assert!(
        said[0].contains("not a valid WebAssembly module"),
        "{}",
        said[0]
    );
    assert!(said[1].contains("cannot be read"), "{}", said[1]);
    assert!(
        said[2].contains("does not export basalt_alloc"),
        "{}",
        said[2]
    );
    assert!(
        said[3].contains("init refused the arguments: bad arguments"),
        "{}",
        said[3]
    );
    // None attached, and the region serves.
    assert!(region.observer().is_none());
    region
        .put(&Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    assert_eq!(region.get(&Get::new("r")).unwrap().cells.len(), 1);
}
