#!/usr/bin/env bash
# Builds the coprocessor modules in coprocessors/ (the examples of docs/coprocessors.md and
# the modules the tests attach) to WebAssembly, into target/wasm/wasm32-unknown-unknown/release/.
# Adds the wasm32 target to the toolchain first if it lacks it (rustup fetches it).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    echo "adding the wasm32-unknown-unknown target to the toolchain" >&2
    rustup target add wasm32-unknown-unknown >&2
fi
cargo build --release --quiet --target wasm32-unknown-unknown \
    --manifest-path coprocessors/Cargo.toml --target-dir target/wasm "$@" >&2
echo "$PWD/target/wasm/wasm32-unknown-unknown/release"
