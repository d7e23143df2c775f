#!/usr/bin/env bash
# Runs aguitest's verifier and @ag-ui/client's on the same 1,000,000-event
# stream in one run and prints both throughputs and the ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm ci --prefix internal/oracle --no-audit --no-fund >/dev/null
go run ./bench/verify "$@"
