#!/usr/bin/env bash
# What the fault tests need (issue 45): iproute2 (network namespaces, veth, bridges, tc),
# iptables (partitions), libfaketime (clock skew), strace (disks that stall or fail). Checks for the exact files they use, and
# installs Debian's packages for the missing ones. Quiet unless it fails; log in $1.
set -euo pipefail
log="${1:-/tmp/chaos-install.log}"
need=()
[ -x /usr/sbin/ip ] || [ -x /sbin/ip ] || need+=(iproute2)
[ -x /usr/sbin/tc ] || [ -x /sbin/tc ] || need+=(iproute2)
command -v iptables >/dev/null || need+=(iptables)
command -v strace >/dev/null || need+=(strace)
[ -e /usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 ] || need+=(libfaketime)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
($sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}") \
    >"$log" 2>&1 || { echo "installing ${need[*]} failed; see $log" >&2; exit 1; }
