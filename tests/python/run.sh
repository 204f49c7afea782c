#!/usr/bin/env bash
# Runs the Python integration tests against a real `basalt standalone`:
#   tests/python/run.sh [pytest args...]
# BASALT_BIN names the binary (default: target/debug/basalt, built if missing). The clients
# (requirements.txt) are installed into a virtualenv under target/, made once and remade when
# requirements.txt changes; chromium and its driver (for the web UI tests) from Debian.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$("$here/venv.sh")"
# The web UI tests drive Debian's chromium.
"$root/tests/browser/install.sh" "$root/target/chromium-install.log"
if [ -z "${BASALT_BIN:-}" ]; then
    (cd "$root" && cargo build --quiet -p basalt-cli)
    export BASALT_BIN="$root/target/debug/basalt"
fi
cd "$here"
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
