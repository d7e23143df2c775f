#!/usr/bin/env bash
# Decodes the same stream from protobuf and from server-sent events with
# aguitest, and from protobuf with @ag-ui/proto, in one run.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm ci --prefix internal/oracle --no-audit --no-fund >/dev/null
go run ./bench/proto "$@"
