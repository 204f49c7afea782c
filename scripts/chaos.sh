#!/usr/bin/env bash
# A fault campaign (issue 45): a cluster on hosts of their own (network namespaces), the
# workload (registers, lists, counters, rows; Basalt's client and hbase-driver), and the
# nemeses one after another, repeated for at least --seconds; then
# the history is checked for linearizability. Prints the verdict; the run's directory keeps
# the history, the verdict, the unavailability after each fault and a timeline (SVG).
#   scripts/chaos.sh [--seconds N] [--nemesis a,b,...] [--seed S] [--servers N]
# Nemeses: partition-zk, partition-master, partition-clients, partition-halves,
# isolate-master, pause, kill, kill-master, kill-zk, slow-link, clock-skew, disk-stall,
# disk-fail (default: all). Needs root. Exit status 2: not linearizable.
# Re-check a run's history: target/release/basalt-chaos --check DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
tests/chaos/install.sh
# A share of the operations goes through hbase-driver, from the tests' virtualenv.
venv="$(tests/python/venv.sh)"
cargo build --release -q -p basalt-cli -p basalt-chaos
target="${CARGO_TARGET_DIR:-$root/target}/release"
exec "$target/basalt-chaos" --basalt "$target/basalt" --python "$venv/bin/python" "$@"
