#!/usr/bin/env bash
# Starts Slipway on a fresh Debian machine: Caddy, Git, musl-tools (the static health probe of a cluster's
# tasks is built with it) and the Docker engine from Debian (dockerd is
# started when it is not running), node modules (no test tools), a build when the sources changed since the last one, then the server with its low-memory Node
# flags. Configuration comes from the environment (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
ensure_packages caddy git musl-tools
ensure_docker_engine
# Only what the server and its build need, and a build that only emits: the tests check the types.
install_node_modules --start
ensure_build dist --start
exec node --liftoff-only --max-semi-space-size=1 --v8-pool-size=1 dist/src/cli/main.js serve
