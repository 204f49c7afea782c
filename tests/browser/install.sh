#!/usr/bin/env bash
# Installs Debian's chromium and chromium-driver if missing (the web UI tests drive them
# through selenium). Quiet unless it fails; its log goes to $1 (default /tmp/chromium-install.log).
set -euo pipefail
log="${1:-/tmp/chromium-install.log}"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq chromium chromium-driver) >"$log" 2>&1 || {
        echo "installing chromium failed; see $log" >&2
        exit 1
    }
fi
