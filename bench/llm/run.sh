#!/bin/sh
# Compares the scripted server with @copilotkit/aimock (pinned in
# package.json) on the same script, read by the same client in one run.
set -e
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --silent
exec go run . "$@"
