#!/usr/bin/env bash
# Installs and starts the Docker engine and builds the local images deployments are tested with.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
ensure_test_images
docker images --filter reference='slipway/*' --format '{{.Repository}}:{{.Tag}}  {{.Size}}'
