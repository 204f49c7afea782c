//! The master's modules stand in layers, each using only those below it (issue 44): the
//! catalog and the region servers at the bottom, the master's state over them, the balancer
//! and the procedures over that, then what is built of procedures (grants, snapshots, replication peers), the
//! services, and the cluster master's loop at the top. A `crate::` path in code (not in a
//! comment) that names a module above its own fails this test, so no import circle comes back.

use std::path::Path;

/// Bottom first.
const LAYERS: &[&str] = &[
    "meta",
    "janitor",
    "upgrade",
    "servers",
    "procedure_log",
    "master",
    "rsgroup",
    "balancer",
    "procedures",
    "normalizer",
    "hbck",
    "acl_store",
    "quota_store",
    "rsgroup_admin",
    "snapshots",
    "peers",
    "admin",
    "access_service",
    "master_service",
    "master_admin",
    "hbck_service",
    "cluster",
];

/// The `crate::` modules a source file's code names.
fn uses(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or_default();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            found.push(name);
        }
    }
    found
}

fn layer(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|m| *m == module)
        .unwrap_or_else(|| panic!("module {module} is in no layer of this test: place it"))
}

/// Every file of the module, `src/<module>.rs` or under `src/<module>/`.
fn files(src: &Path, module: &str) -> Vec<std::path::PathBuf> {
    let single = src.join(format!("{module}.rs"));
    if single.exists() {
        return vec![single];
    }
    let dir = src.join(module);
    let mut out: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    out.sort();
    out
}

#[test]
fn each_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // Every module of the crate has its layer.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    for line in lib.lines() {
        let line = line.trim();
        if let Some(rest) = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
        {
            layer(rest.trim_end_matches(';'));
        }
    }
    let mut wrong = Vec::new();
    for module in LAYERS {
        for file in files(&src, module) {
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            for used in uses(&source) {
                if used != *module
                    && LAYERS.contains(&used.as_str())
                    && layer(&used) > layer(module)
                {
                    wrong.push(format!("{} uses crate::{used}", file.display()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "uses of higher layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_uses_in_code_only() {
    let found = uses(
        "use crate::master::Master; // crate::cluster\n//! see crate::admin\nlet x = crate::meta::f();",
    );
    assert_eq!(found, ["master", "meta"]);
}
