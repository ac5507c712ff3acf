#!/usr/bin/env bash
# The server's compiled JavaScript, rebuilt only when what the compiler reads changed since the last build.

BUILD_INPUTS=(src commands projections tsconfig.json tsconfig.build.json package.json package-lock.json)

# A digest of the contents (not the times) of every file the build reads.
build_digest() {
  find "${BUILD_INPUTS[@]}" -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# The static health probe of a cluster's tasks, built beside the server (scripts/build-probe.sh).
BUILD_PROBE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build-probe.sh"

# ensure_build [OUT_DIR] [--start]: compiles into OUT_DIR (dist) unless it holds a build of the same sources. The
# digest is written last, so a build cut short is done again.
# --start (npm start) only emits: no type-check of the server (`tsc --noCheck`; npm start installs no @types) nor of
# the dashboard (vite does not type-check), which npm test and npm run typecheck do. Without --start, a build made
# by npm start gets the dashboard's type-check it skipped (.build-checked).
ensure_build() {
  local out=${1:-dist} mode=${2:-} digest started=$SECONDS
  digest=$(build_digest)
  if [[ -f "$out/src/cli/main.js" && $(cat "$out/.build-digest" 2>/dev/null) == "$digest" ]]; then
    if [[ $mode != --start && $(cat "$out/.build-checked" 2>/dev/null) != "$digest" ]]; then
      echo "type-checking the dashboard (the build in $out was npm start's)"
      npx tsc -p src/dashboard/tsconfig.json
      echo "$digest" >"$out/.build-checked"
    fi
    # musl-tools may have come since (npm start installs it now): a cluster's health checks need the probe.
    [[ -x "$out/probe/slipway-probe" ]] || bash "$BUILD_PROBE" "$(realpath -m "$out")"
    echo "build up to date ($out)"
    return 0
  fi
  if [[ -f "$out/.build-digest" ]]; then
    echo "building Slipway into $out (the sources changed since the last build)"
  else
    echo "building Slipway into $out (first start: about a minute)"
  fi
  rm -f "$out/.build-digest" "$out/.build-checked"
  if [[ $mode == --start ]]; then
    npx tsc -p tsconfig.build.json --outDir "$out" --noCheck
  else
    npx tsc -p tsconfig.build.json --outDir "$out"
  fi
  chmod +x "$out/src/cli/main.js"
  bash "$BUILD_PROBE" "$(realpath -m "$out")"
  [[ $mode == --start ]] || npx tsc -p src/dashboard/tsconfig.json
  npx vite build --config src/dashboard/vite.config.ts --logLevel warn --outDir "$(realpath -m "$out")/dashboard"
  echo "$digest" >"$out/.build-digest"
  [[ $mode == --start ]] || echo "$digest" >"$out/.build-checked"
  echo "built in $((SECONDS - started)) s"
}
