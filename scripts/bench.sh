#!/usr/bin/env bash
# Prints Slipway's performance figures; measured, never asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
# first-hour times a fresh clone's npm start, images and quick start (bench/first-hour.ts): none of the test
# machine's servers, and its own images.
if [[ ${1:-} == first-hour ]]; then
  ensure_packages git curl
  ensure_docker_engine
  install_node_modules
  exec node --import tsx bench/first-hour.ts
fi
prepare_test_machine
npm run build --silent
await_test_images
node --import tsx bench/run.ts "$@"
