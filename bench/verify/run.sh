#!/usr/bin/env bash
# Runs aguitest's verifier and @ag-ui/client's on the same 1,000,000-event
# stream in one run and prints the ratios: in process, then as whole
# processes from start to exit next to cat of the file. Pass -big 1e9 to
# time a 1 GB SSE file and a 1 GB recording as well.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm ci --prefix internal/oracle --no-audit --no-fund >/dev/null
go run ./bench/verify "$@"
go run ./bench/verify -process "$@"
