#!/usr/bin/env bash
# A fault campaign (issue 45): a cluster on hosts of their own (network namespaces), the
# register workload, and the nemeses one after another, repeated for at least --seconds; then
# the history is checked for linearizability. Prints the verdict; the run's directory keeps
# the history, the verdict, the unavailability after each fault and a timeline (SVG).
#   scripts/chaos.sh [--seconds N] [--nemesis a,b,...] [--seed S] [--servers N]
# Nemeses: partition-zk, partition-master, partition-clients, pause, kill, kill-master,
# slow-link, clock-skew (default: all). Needs root. Exit status 2: not linearizable.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tests/chaos/install.sh
cargo build --release -q -p basalt-cli -p basalt-chaos
target="${CARGO_TARGET_DIR:-$root/target}/release"
exec "$target/basalt-chaos" --basalt "$target/basalt" "$@"
