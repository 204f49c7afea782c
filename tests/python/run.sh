#!/usr/bin/env bash
# Runs the Python integration tests against a real `basalt standalone`:
#   tests/python/run.sh [pytest args...]
# BASALT_BIN names the binary (default: target/debug/basalt, built if missing). The clients
# (requirements.txt) are installed into a virtualenv under target/, made once and remade when
# requirements.txt changes; chromium and its driver (for the web UI tests) from Debian.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${BASALT_PY_VENV:-$root/target/python-venv}"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$stamp"; then
    echo "== making the test virtualenv in $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$stamp"
fi
# The web UI tests drive Debian's chromium.
"$root/tests/browser/install.sh" "$root/target/chromium-install.log"
if [ -z "${BASALT_BIN:-}" ]; then
    (cd "$root" && cargo build --quiet -p basalt-cli)
    export BASALT_BIN="$root/target/debug/basalt"
fi
cd "$here"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
