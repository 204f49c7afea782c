# Sourced by the benchmark scripts: builds the release binary and sets
#   root    the repository
#   basalt  the binary (under CARGO_TARGET_DIR if set)
#   work    a scratch directory (each script removes it in its EXIT trap)
# and leaves the shell in $root.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cargo build --release -q -p basalt-cli ${BASALT_FEATURES:+--features "$BASALT_FEATURES"}
basalt="${CARGO_TARGET_DIR:-$root/target}/release/basalt"
work="$(mktemp -d)"
