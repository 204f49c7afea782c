#!/usr/bin/env bash
# A private MIT Kerberos KDC for tests, on 127.0.0.1: realm BASALT.TEST, Debian's krb5-kdc
# (installed if missing). Makes, in DIR:
#   krb5.conf                 the clients' and servers' configuration (KRB5_CONFIG)
#   hbase.keytab              the service principal hbase/localhost@BASALT.TEST (KRB5_KTNAME)
#   <user>.keytab, <user>.cc  for each USER given: a keytab, and a credential cache holding a
#                             ticket (KRB5CCNAME=FILE:DIR/<user>.cc)
# and starts krb5kdc in the foreground of a background process whose pid goes to DIR/kdc.pid.
#   tests/kerberos/start.sh DIR [USER...]
set -euo pipefail
dir="$1"; shift
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
"$(dirname "$0")/install.sh"
realm=BASALT.TEST
# A free port for the KDC (UDP and TCP).
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$dir/krb5.conf" <<CONF
[libdefaults]
    default_realm = $realm
    dns_lookup_realm = false
    dns_lookup_kdc = false
    rdns = false
    udp_preference_limit = 1
[realms]
    $realm = {
        kdc = 127.0.0.1:$port
    }
[domain_realm]
    localhost = $realm
CONF
cat >"$dir/kdc.conf" <<CONF
[kdcdefaults]
    kdc_ports = $port
    kdc_tcp_ports = $port
[realms]
    $realm = {
        database_name = $dir/principal
        key_stash_file = $dir/stash
        acl_file = $dir/kadm5.acl
        max_life = 1h
    }
[logging]
    kdc = FILE:$dir/kdc.log
CONF
: >"$dir/kadm5.acl"
export KRB5_CONFIG="$dir/krb5.conf" KRB5_KDC_PROFILE="$dir/kdc.conf"
kdb5_util create -s -r "$realm" -P "$(head -c 24 /dev/urandom | base64)" >/dev/null
kadmin.local -q "addprinc -randkey hbase/localhost@$realm" >/dev/null
kadmin.local -q "ktadd -k $dir/hbase.keytab hbase/localhost@$realm" >/dev/null
for user in "$@"; do
    kadmin.local -q "addprinc -randkey $user@$realm" >/dev/null
    kadmin.local -q "ktadd -k $dir/$user.keytab $user@$realm" >/dev/null
done
krb5kdc -n -P "$dir/kdc.pid" &
echo $! >"$dir/kdc.pid"
# Ready once it hands out a ticket.
for user in "$@"; do
    for _ in $(seq 50); do
        KRB5CCNAME="FILE:$dir/$user.cc" kinit -kt "$dir/$user.keytab" "$user@$realm" 2>/dev/null && break
        sleep 0.1
    done
    KRB5CCNAME="FILE:$dir/$user.cc" klist -s
done
echo "kdc 127.0.0.1:$port realm $realm in $dir"
