#!/usr/bin/env bash
# This tree's basalt beside another commit's (default 0985ffe, before issue 61's reshaping),
# in the same run: the write path (embedded sequentialWrite), the read path (embedded
# randomRead and scanRange100 on what was written) and the RPC path (sequentialWrite and
# randomRead over --rpc, each binary against its own `basalt standalone`). Each round runs
# the two binaries one after the other, in alternating order; ROUNDS rounds (default 3).
# The embedded engine's data is on the disk (a scratch directory), so its figures move more.
# Prints each round's ops/s and the median of the rounds' ratios (this tree / the other).
#   scripts/bench-commits.sh [commit] [rows]
# BASE_BIN=path uses that binary as the other commit's instead of building it.
set -euo pipefail
base_commit="${1:-0985ffe}"
rows="${2:-100000}"
rounds="${ROUNDS:-3}"
source "$(dirname "$0")/bench-common.sh"
head_bin="$work/basalt-head"
cp "$basalt" "$head_bin"
# The other commit, built in a worktree of its own with its own target directory.
base_tree="$root/target/bench-commits/tree"
base_target="$root/target/bench-commits/target"
servers=()
cleanup() {
    for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
    git -C "$root" worktree remove --force "$base_tree" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
base_bin="$work/basalt-base"
if [ -n "${BASE_BIN:-}" ]; then
    cp "$BASE_BIN" "$base_bin"
else
    git -C "$root" worktree add --force --detach "$base_tree" "$base_commit" >/dev/null
    (cd "$base_tree" && CARGO_TARGET_DIR="$base_target" cargo build --release -q -p basalt-cli)
    cp "$base_target/release/basalt" "$base_bin"
fi

rates() { grep -o "= [0-9]* ops/s" | awk '{print $2}' | paste -sd' '; }
embedded() { # embedded <binary>: sequentialWrite, randomRead, scanRange100 on one engine
    rm -rf "$work/pe"
    "$1" pe --dir "$work/pe" --value-size 100 --rows "$rows" --threads 2 \
        sequentialWrite randomRead scanRange100 | rates
}
rpc() { # rpc <binary> <port>: sequentialWrite and randomRead against its own server
    local dir="$work/data-$2"
    "$1" standalone --data "$dir" --thrift-port 0 --rpc-port "$2" --info-port -1 >"$dir.log" 2>&1 &
    local server=$!
    servers+=("$server")
    for _ in $(seq 100); do grep -q "MasterService) listening" "$dir.log" 2>/dev/null && break; sleep 0.1; done
    "$1" pe --rpc "127.0.0.1:$2" --value-size 100 --rows $((rows / 5)) --threads 4 \
        sequentialWrite randomRead | rates
    kill "$server"
    wait "$server" 2>/dev/null || true
}
names=("embedded sequentialWrite" "embedded randomRead" "embedded scanRange100" "rpc sequentialWrite" "rpc randomRead")
declare -A ratio
port=$((20000 + RANDOM % 20000))
for round in $(seq "$rounds"); do
    order=(head base)
    [ $((round % 2)) -eq 0 ] && order=(base head)
    declare -A got=()
    for which in "${order[@]}"; do
        bin="$head_bin"; [ "$which" = base ] && bin="$base_bin"
        port=$((port + 1))
        got[$which]="$(embedded "$bin") $(rpc "$bin" "$port")"
    done
    read -ra h <<<"${got[head]}"
    read -ra b <<<"${got[base]}"
    echo "== round $round ($(IFS=,; echo "${order[*]}") first)"
    for i in "${!names[@]}"; do
        r=$(awk -v a="${h[$i]}" -v b="${b[$i]}" 'BEGIN { printf "%.3f", a / b }')
        ratio[$i]+="$r "
        printf "%-26s head %9s  %s %9s  ratio %s\n" "${names[$i]}" "${h[$i]}" "$base_commit" "${b[$i]}" "$r"
    done
done
echo "== median of the rounds' ratios (this tree / $base_commit)"
for i in "${!names[@]}"; do
    m=$(echo "${ratio[$i]}" | tr ' ' '\n' | grep . | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
    printf "%-26s %s\n" "${names[$i]}" "$m"
done
