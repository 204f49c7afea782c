#!/usr/bin/env bash
# Debian's MIT Kerberos: the KDC and tools for the test KDC (tests/kerberos/start.sh), and the
# headers and libclang the `kerberos` feature builds against. Does nothing if all are there.
set -euo pipefail
need=()
command -v krb5kdc >/dev/null || need+=(krb5-kdc krb5-admin-server)
command -v kinit >/dev/null || need+=(krb5-user)
[ -e /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
# bindgen loads libclang itself: the unversioned `libclang.so` libclang-dev installs. A glob
# like libclang*.so* would also match llvm's libclang-cpp.so.N, which bindgen cannot use.
has_libclang() {
    local f
    for f in /usr/lib/llvm-*/lib/libclang.so /usr/lib/x86_64-linux-gnu/libclang.so; do
        [ -e "$f" ] && return 0
    done
    return 1
}
has_libclang || need+=(libclang-dev)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
