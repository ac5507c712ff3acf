#!/usr/bin/env bash
# Installs and starts the Docker engine, builds the local stand-ins of the images Slipway pulls (only those
# missing or whose sources changed; SLIPWAY_IMAGE_JOBS at a time, 2 by default), then prints the settings
# that point Slipway at them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
started=$SECONDS
ensure_test_images
echo "images ready in $((SECONDS - started)) s"
print_image_settings
