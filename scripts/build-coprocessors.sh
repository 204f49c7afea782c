#!/usr/bin/env bash
# Builds the coprocessor modules in coprocessors/ (the examples of docs/guide/coprocessors.md
# and the modules the tests attach) to WebAssembly, into
# target/wasm/wasm32-unknown-unknown/release/, and prints that directory.
#   scripts/build-coprocessors.sh             build (adding rustup's wasm32 target if missing)
#   scripts/build-coprocessors.sh --refresh   build, then copy the modules to coprocessors/prebuilt
# A toolchain that cannot get the wasm32 target (no rustup, no network to fetch it) gets the
# modules last built here, from coprocessors/prebuilt/, with a warning.
set -euo pipefail
cd "$(dirname "$0")/.."
out="$PWD/target/wasm/wasm32-unknown-unknown/release"
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    echo "adding the wasm32-unknown-unknown target to the toolchain" >&2
    if ! rustup target add wasm32-unknown-unknown >&2; then
        echo "warning: no wasm32 target: using the modules in coprocessors/prebuilt" >&2
        mkdir -p "$out"
        cp coprocessors/prebuilt/*.wasm "$out/"
        echo "$out"
        exit 0
    fi
fi
cargo build --release --quiet --target wasm32-unknown-unknown \
    --manifest-path coprocessors/Cargo.toml --target-dir target/wasm >&2
if [ "${1:-}" = "--refresh" ]; then
    mkdir -p coprocessors/prebuilt
    for m in "$out"/*.wasm; do cp "$m" coprocessors/prebuilt/; done
fi
echo "$out"
