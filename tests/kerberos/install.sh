#!/usr/bin/env bash
# Debian's MIT Kerberos: the KDC and tools for the test KDC (tests/kerberos/start.sh), and the
# headers and libclang the `kerberos` feature builds against. Does nothing if all are there.
set -euo pipefail
need=()
command -v krb5kdc >/dev/null || need+=(krb5-kdc krb5-admin-server)
command -v kinit >/dev/null || need+=(krb5-user)
[ -e /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || need+=(libclang-dev)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
