#!/usr/bin/env bash
# Debian's chromium for the explorer's browser tests (issue 14): playwright drives it
# through `executable_path`, since playwright's own browser download is unreachable.
# Idempotent: installs only when no chromium is on PATH.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
chromium --version
