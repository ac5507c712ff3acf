#!/usr/bin/env bash
# The server's compiled JavaScript, rebuilt only when what the compiler reads changed since the last build.

BUILD_INPUTS=(src commands projections tsconfig.json tsconfig.build.json package.json package-lock.json)

# A digest of the contents (not the times) of every file the build reads.
build_digest() {
  find "${BUILD_INPUTS[@]}" -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
}

# ensure_build [OUT_DIR]: compiles into OUT_DIR (dist) unless it holds a build of the same sources. The digest
# is written last, so a build cut short is done again.
ensure_build() {
  local out=${1:-dist} digest started=$SECONDS
  digest=$(build_digest)
  if [[ -f "$out/src/cli/main.js" && $(cat "$out/.build-digest" 2>/dev/null) == "$digest" ]]; then
    echo "build up to date ($out)"
    return 0
  fi
  echo "building into $out (the sources changed since the last build)"
  rm -f "$out/.build-digest"
  npx tsc -p tsconfig.build.json --outDir "$out"
  chmod +x "$out/src/cli/main.js"
  npx tsc -p src/dashboard/tsconfig.json
  npx vite build --config src/dashboard/vite.config.ts --logLevel warn --outDir "$(realpath -m "$out")/dashboard"
  echo "$digest" >"$out/.build-digest"
  echo "built in $((SECONDS - started)) s"
}
