#!/usr/bin/env bash
# What TLS costs on the native RPC (issue 32): one connection's and 16 connections' puts and
# gets of 100-byte rows, plaintext against TLS (client certificates on, TLS 1.3, rustls/ring),
# against one `basalt standalone` serving both (--tls-plaintext), the two taking turns so the
# machine's drift hits both alike. Certificates are made here with openssl.
#   scripts/bench-tls.sh [rows] [rounds]
set -euo pipefail
rows="${1:-50000}"
rounds="${2:-2}"
source "$(dirname "$0")/bench-common.sh"
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT

cert() { # cert <name> <cn> <extensions>: <name>.pem and <name>.key signed by the CA
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$2" \
        -keyout "$work/$1.key" -out "$work/$1.csr" 2>/dev/null
    printf "%b" "$3" >"$work/$1.ext"
    openssl x509 -req -in "$work/$1.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
        -days 1 -extfile "$work/$1.ext" -out "$work/$1.pem" 2>/dev/null
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench CA" \
    -keyout "$work/ca.key" -out "$work/ca.pem" 2>/dev/null
cert server basalt-server "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n"
cert client basalt "extendedKeyUsage=clientAuth\n"

"$basalt" standalone --data "$work/data" --thrift-port 0 --rpc-port 0 --info-port -1 \
    --tls-cert "$work/server.pem" --tls-key "$work/server.key" --tls-ca "$work/ca.pem" \
    --tls-plaintext >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done
addr=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$work/server.log" | head -1)
tls=(--tls-ca "$work/ca.pem" --tls-cert "$work/client.pem" --tls-key "$work/client.key")

rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
bench() { # bench <mode> [flags...]: four rates
    local mode="$1" per=$((rows / 4)); shift
    for spec in "1 sequentialWrite $rows" "1 randomRead $rows" "16 sequentialWrite $per" "16 randomRead $per"; do
        set -- $spec "$@"
        local threads="$1" workload="$2" n="$3"; shift 3
        "$basalt" pe --rpc "$addr" --value-size 100 --table "$mode$threads" --rows "$n" \
            --threads "$threads" "$@" "$workload" | rate
    done
}

names=("sequentialWrite x1" "randomRead x1" "sequentialWrite x16" "randomRead x16")
printf "%-6s %-22s %10s %10s %8s\n" round workload plaintext tls tls/plain
for round in $(seq "$rounds"); do
    plain=($(bench plain))
    secure=($(bench tls "${tls[@]}"))
    for i in 0 1 2 3; do
        printf "%-6s %-22s %10s %10s %8s\n" "$round" "${names[$i]}" "${plain[$i]}" "${secure[$i]}" \
            "$(awk "BEGIN{printf \"%.2f\", ${secure[$i]}/${plain[$i]}}")"
    done
done
