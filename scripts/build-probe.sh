#!/usr/bin/env bash
# The health probe of Swarm tasks (images/probe/probe.c): static, so it runs in any image. Without musl-gcc
# it is skipped with a note; cluster deployments with an HTTP or TCP check then say what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}/probe/slipway-probe
if ! command -v musl-gcc >/dev/null; then
  echo "note: musl-gcc not found (apt-get install musl-tools): the Swarm health probe is not built" >&2
  exit 0
fi
mkdir -p "$(dirname "$out")"
musl-gcc -Os -static -Wall -o "$out" images/probe/probe.c
strip "$out"
