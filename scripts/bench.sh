#!/usr/bin/env bash
# Prints Slipway's performance figures; measured, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
prepare_test_machine
npm run build --silent
await_test_images
node --import tsx bench/run.ts "$@"
