#!/usr/bin/env bash
# Prints Slipway's performance figures; measured, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
source scripts/lib/docker.sh
trap stop_postgres EXIT
ensure_packages caddy postgresql git procps
install_node_modules
start_postgres
ensure_test_images
npm run build --silent
node --import tsx bench/run.ts "$@"
