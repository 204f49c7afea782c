#!/usr/bin/env bash
# Packages the crates that go to crates.io (the client and the few crates it needs:
# basalt-common, basalt-proto, basalt-net, basalt-coord, basalt-ops, basalt-transport,
# basalt-client; every other crate says
# `publish = false`), and builds each from its package against the others' packages, as
# crates.io would: `cargo publish --workspace --dry-run`. Needs the crates.io index.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo publish --workspace --dry-run --allow-dirty "$@"
