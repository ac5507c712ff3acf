#!/usr/bin/env bash
# Installs and starts the Docker engine, builds local stand-ins of the images Slipway pulls (only those missing
# or whose sources changed; SLIPWAY_IMAGE_JOBS at a time, 2 by default), then prints the settings that point
# Slipway at them.
#   npm run images                      every image (what the test suite uses)
#   npm run images -- postgres web      only these (and what they are built FROM)
# Names: base node python go static postgres mysql redis clickhouse cluster-registry cluster-caddy cluster-agent web
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh
case ${1:-} in
  -h | --help | help)
    sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
    echo "Names: base $(image_names | tr '\n' ' ')"
    exit 0
    ;;
esac
started=$SECONDS
ensure_images "$@"
echo "images ready in $((SECONDS - started)) s"
print_image_settings "$@"
