#!/usr/bin/env bash
# Makes (once, and again when requirements.txt or requirements-nodeps.txt changes) the
# virtualenv of the Python clients the tests drive, and prints its directory:
#   tests/python/venv.sh      # BASALT_PY_VENV names it (default: target/python-venv)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${BASALT_PY_VENV:-$root/target/python-venv}"
stamp="$venv/.requirements"
wanted="$(cat "$here/requirements.txt" "$here/requirements-nodeps.txt")"
if [ ! -x "$venv/bin/python" ] || [ "$wanted" != "$(cat "$stamp" 2>/dev/null)" ]; then
    echo "== making the test virtualenv in $venv" >&2
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps \
        -r "$here/requirements-nodeps.txt" >&2
    printf '%s' "$wanted" > "$stamp"
fi
echo "$venv"
