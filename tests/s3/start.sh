#!/usr/bin/env bash
# Starts a private S3-compatible server (moto's server mode, from PyPI) on 127.0.0.1 and a free
# port, with one empty bucket, `basalt`:
#   tests/s3/start.sh DIR [OWNER_PID]   -> prints "PORT PID" once the bucket answers
# Stop it with `kill PID`; given OWNER_PID, it also stops when that process is gone. Log:
# DIR/s3.log. The server is installed into a virtualenv under target/ (BASALT_S3_VENV), made
# once and remade when requirements.txt changes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="$1"
owner="${2:-}"
mkdir -p "$dir"
venv="${BASALT_S3_VENV:-$root/target/s3-venv}"
stamp="$venv/.requirements"
# Concurrent tests share one virtualenv: whoever holds the lock makes it.
mkdir -p "$root/target"
exec 9>"$root/target/.s3-venv.lock"
flock 9
if [ ! -x "$venv/bin/moto_server" ] || ! cmp -s "$here/requirements.txt" "$stamp"; then
    rm -rf "$venv"
    python3 -m venv "$venv" >"$dir/install.log" 2>&1
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" \
        >>"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; exit 1; }
    cp "$here/requirements.txt" "$stamp"
fi
flock -u 9
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
setsid "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" </dev/null >"$dir/s3.log" 2>&1 &
pid=$!
if [ -n "$owner" ]; then
    (while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
     kill "$pid" 2>/dev/null || true) </dev/null >/dev/null 2>&1 &
    disown
fi
for _ in $(seq 200); do
    if "$venv/bin/python" - "$port" >/dev/null 2>&1 <<'PY'
import sys, urllib.request
req = urllib.request.Request(f"http://127.0.0.1:{sys.argv[1]}/basalt", method="PUT")
urllib.request.urlopen(req, timeout=2)
PY
    then
        echo "$port $pid"
        exit 0
    fi
    sleep 0.1
done
echo "the S3 server did not start; see $dir/s3.log" >&2
kill "$pid" 2>/dev/null || true
exit 1
