#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs what it needs, starts a throwaway
# Postgres server for the server tests, type-checks, then runs every tap test.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/setup.sh
prepare_test_machine

log "type-check"
npx tsc -p tsconfig.json --noEmit
log "build (the browser tests load the dashboard, the CLI tests and the quick start run dist) and the Swarm health probe"
ensure_build
bash scripts/build-probe.sh
await_test_images

log "tests"
[[ -n "${EVENTSTORE_URL:-}" ]] ||
  echo "EventStoreDB contract suite: skipped (EVENTSTORE_URL not set; no EventStoreDB server can be installed here)"
[[ -n "${MONGODB_TEST_URL:-}" ]] ||
  echo "MongoDB browser tests: skipped (MONGODB_TEST_URL not set; no MongoDB server can be installed here)"
# Every requirement is fatal here: a missing engine, image or server fails the run instead of skipping.
export SLIPWAY_TEST_STRICT=1
rm -rf .tap/test-results .tap/exits
out=$(mktemp)
status=0
npx tap -R terse "$@" 2>&1 | tee "$out" || status=$?
node scripts/lib/check-skips.mjs .tap/test-results || status=1
if [[ $status -ne 0 ]]; then
  node scripts/lib/print-failures.mjs .tap/test-results .tap/exits
elif [[ -d .tap/exits ]]; then
  echo "Test files ended after outliving their last test (they passed; what held them):"
  find .tap/exits -type f -exec sh -c 'echo "$1"; cat "$1"' _ {} \;
fi
# tap ends with "# { total: N, pass: N[, fail: N] }"; restate it in the plain form CI reads.
node -e '
  const line = require("fs").readFileSync(process.argv[1], "utf8").split("\n").reverse().find((l) => l.startsWith("# { total"));
  if (line) {
    const n = (k) => Number((line.match(new RegExp(k + ": (\\d+)")) || [0, 0])[1]);
    console.log(`${n("pass")} passed, ${n("fail")} failed` + (n("skip") ? `, ${n("skip")} skipped` : ""));
  }' "$out"
rm -f "$out"
exit $status
