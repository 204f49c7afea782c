//! Layers held by a test, so that no import circle or upward arrow comes back.
//!
//! - The master's modules (issue 44): the catalog and the region servers at the bottom, the
//!   master's state over them, the balancer and the procedures over that, then what is built
//!   of procedures (grants, snapshots, replication peers), the services, and the cluster
//!   master's loop at the top.
//! - The region's modules (issue 61): cells and cursors at the bottom, memstores and store
//!   files over them, the store, the read view, the scanner, and the region at the top.
//! - The workspace's crates (issue 61): which crate may depend on which.
//!
//! A `crate::` path in code (not in a comment) that names a module above its own fails.

use std::path::{Path, PathBuf};

/// The master's modules, bottom first.
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
    "chores",
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

/// The region's modules, bottom first.
const REGION_LAYERS: &[&str] = &[
    "key",
    "mslab",
    "mvcc",
    "row_lock",
    "budget",
    "nvb",
    "meta_keys",
    "observer",
    "reference",
    "cursor",
    "memstore",
    "flat",
    "flush_writer",
    "matcher",
    "compaction",
    "file_cursor",
    "store",
    "view",
    "scanner",
    "region",
];

fn layer(layers: &[&str], module: &str) -> usize {
    layers
        .iter()
        .position(|m| *m == module)
        .unwrap_or_else(|| panic!("module {module} is in no layer of this test: place it"))
}

/// Every file of the module: `src/<module>.rs` and what is under `src/<module>/`.
fn files(src: &Path, module: &str) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let single = src.join(format!("{module}.rs"));
    if single.exists() {
        out.push(single);
    }
    let dir = src.join(module);
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut inner: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        inner.sort();
        out.extend(inner);
    }
    assert!(
        !out.is_empty(),
        "module {module} has no source in {}",
        src.display()
    );
    out
}

/// Each use of a higher layer by a module of the crate whose sources are `src`, and each
/// module `lib.rs` declares that has no layer.
fn module_problems(src: &Path, layers: &[&str]) -> Vec<String> {
    // Every module of the crate has its layer.
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default();
    for line in lib.lines() {
        let line = line.trim();
        if let Some(rest) = line
            .strip_prefix("pub mod ")
            .or_else(|| line.strip_prefix("mod "))
            // `mod x;` is a file of its own; an inline `mod x { ... }` is part of lib.rs.
            && let Some(name) = rest.strip_suffix(';')
        {
            layer(layers, name);
        }
    }
    let mut wrong = Vec::new();
    for module in layers {
        for file in files(src, module) {
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            for used in uses(&source) {
                if used != *module
                    && layers.contains(&used.as_str())
                    && layer(layers, &used) > layer(layers, module)
                {
                    wrong.push(format!("{} uses crate::{used}", file.display()));
                }
            }
        }
    }
    wrong
}

fn crate_src(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(name)
        .join("src")
}

#[test]
fn each_module_uses_only_the_layers_below_it() {
    let wrong = module_problems(&crate_src("master"), LAYERS);
    assert!(
        wrong.is_empty(),
        "uses of higher layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn each_region_module_uses_only_the_layers_below_it() {
    let wrong = module_problems(&crate_src("region"), REGION_LAYERS);
    assert!(
        wrong.is_empty(),
        "uses of higher layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn an_upward_import_fails_the_module_layers() {
    // The region's sources as they are, with the view made to name the scanner above it.
    let dir = std::env::temp_dir().join(format!("basalt-layers-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("a scratch directory");
    for entry in std::fs::read_dir(crate_src("region")).expect("the region's sources") {
        let file = entry.expect("an entry").path();
        if file.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let mut text = std::fs::read_to_string(&file).expect("a region source");
        if file.ends_with("view.rs") {
            text.push_str("\nuse crate::scanner::RegionScanner;\n");
        }
        std::fs::write(src.join(file.file_name().expect("a file name")), text).expect("a copy");
    }
    let wrong = module_problems(&src, REGION_LAYERS);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        wrong,
        vec![format!(
            "{} uses crate::scanner",
            src.join("view.rs").display()
        )]
    );
}

#[test]
fn the_check_sees_uses_in_code_only() {
    let found = uses(
        "use crate::master::Master; // crate::cluster\n//! see crate::admin\nlet x = crate::meta::f();",
    );
    assert_eq!(found, ["master", "meta"]);
}

/// The workspace's crates in layers, bottom first: a crate's `[dependencies]` may name only
/// crates of lower layers (its tests, `[dev-dependencies]`, may use any).
const CRATE_LAYERS: &[&[&str]] = &[
    &["common", "fs", "net", "coprocessor-sdk"],
    &["storefile", "wal", "proto", "layout"],
    &["region", "coord", "ops", "rpc", "transport"],
    &["client"],
    &["coprocessor", "thrift", "rest", "web", "shell", "chaos"],
    &["regionserver"],
    &["master"],
    &["embedded"],
    &["cli"],
];

/// What a gateway or tool built on the client never uses: the engine's crates (DESIGN: no
/// gateway depends on the engine).
const ENGINE: &[&str] = &[
    "storefile",
    "wal",
    "region",
    "regionserver",
    "master",
    "embedded",
];
const GATEWAYS: &[&str] = &["thrift", "rest", "web", "shell", "chaos"];

fn crate_layer(name: &str) -> usize {
    CRATE_LAYERS
        .iter()
        .position(|l| l.contains(&name))
        .unwrap_or_else(|| panic!("crate basalt-{name} is in no layer of this test: place it"))
}

/// The workspace crates `manifest` names under `[dependencies]` (without `basalt-`).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && let Some(rest) = line.strip_prefix("basalt-") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            out.push(name);
        }
    }
    out
}

/// Each crate's problems: a dependency on its own layer or above, or a gateway on the engine.
fn crate_problems(manifests: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, manifest) in manifests {
        let own = crate_layer(name);
        for dep in dependencies(manifest) {
            if crate_layer(&dep) >= own {
                problems.push(format!(
                    "basalt-{name} depends on basalt-{dep}, which is not below it"
                ));
            }
            if GATEWAYS.contains(&name.as_str()) && ENGINE.contains(&dep.as_str()) {
                problems.push(format!(
                    "basalt-{name}, a gateway, depends on the engine's basalt-{dep}"
                ));
            }
        }
    }
    problems
}

#[test]
fn each_crate_depends_only_on_the_layers_below_it() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut manifests = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates/") {
        let dir = entry.expect("an entry").path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a crate directory's name")
            .to_owned();
        manifests.push((name, manifest));
    }
    assert!(
        manifests.len() >= 20,
        "found only {} crates",
        manifests.len()
    );
    let problems = crate_problems(&manifests);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_upward_dependency_fails_the_crate_layers() {
    let manifests = vec![
        (
            "region".to_owned(),
            "[dependencies]\nbasalt-common.workspace = true\nbasalt-client.workspace = true\n"
                .to_owned(),
        ),
        (
            "rest".to_owned(),
            "[dependencies]\nbasalt-region.workspace = true\n[dev-dependencies]\nbasalt-embedded.workspace = true\n"
                .to_owned(),
        ),
    ];
    assert_eq!(
        crate_problems(&manifests),
        vec![
            "basalt-region depends on basalt-client, which is not below it".to_owned(),
            "basalt-rest, a gateway, depends on the engine's basalt-region".to_owned(),
        ]
    );
}
