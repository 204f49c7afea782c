#!/usr/bin/env bash
# Builds coprocessors/assemblyscript (the coprocessor example in AssemblyScript) with the
# compiler npm installs from the lock file; prints the module's path.
set -euo pipefail
cd "$(dirname "$0")/../coprocessors/assemblyscript"
if [ ! -x node_modules/.bin/asc ]; then
    npm ci --no-audit --no-fund --loglevel=error >&2
fi
npm run --silent build >&2
echo "$PWD/build/no_bad_values.wasm"
