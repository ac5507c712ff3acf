#!/usr/bin/env bash
# Shared by the scripts: system packages, node modules, a throwaway Postgres server, the Docker engine.

log() { printf '\n== %s  [%s]\n' "$*" "$(date +%T)"; }

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

have_postgres() { [[ -n "$(pg_bin)" && -x "$(pg_bin)/postgres" ]]; }

# On a new server unattended-upgrades holds Debian's package lock for minutes: apt-get waits for it (up to 10
# minutes) instead of failing at once.
APT_WAIT=(-o DPkg::Lock::Timeout=600)

# ensure_packages NAME... : installs the Debian packages whose program is missing.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    case $pkg in
      postgresql) have_postgres || missing+=(postgresql) ;;
      procps) command -v pkill >/dev/null || missing+=(procps) ;;
      docker.io) command -v dockerd >/dev/null || missing+=(docker.io) ;;
      dnsutils) command -v dig >/dev/null || missing+=(dnsutils) ;;
      musl-tools) command -v musl-gcc >/dev/null || missing+=(musl-tools) ;;
      iproute2) command -v ip >/dev/null || missing+=(iproute2) ;;
      *) command -v "$pkg" >/dev/null || missing+=("$pkg") ;;
    esac
  done
  ((${#missing[@]} == 0)) && return 0
  log "installing ${missing[*]} from Debian"
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get "${APT_WAIT[@]}" update -qq
  # Packages start their own services where they can; Slipway runs its own instances.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get "${APT_WAIT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# install_node_modules [--start]: npm ci when node_modules is missing or older than the lockfile. --start (npm start)
# installs only the dependencies: what the server, the CLI and their build need (the compiler, vite), not the
# tests' and benchmarks' tools (tap, lighthouse, puppeteer, …): a quarter of the download. Without --start
# (tests, benchmarks) a start-only node_modules is completed with the devDependencies.
install_node_modules() {
  local marker=node_modules/.slipway-omit-dev
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
    if [[ ${1:-} == --start ]]; then
      log "npm ci --omit=dev (the tests' tools are installed by npm test)"
      npm ci --omit=dev --no-audit --no-fund
      touch "$marker"
    else
      log "npm ci"
      npm ci --no-audit --no-fund
    fi
  elif [[ ${1:-} != --start && -f $marker ]]; then
    log "npm ci (node_modules holds only what npm start needs)"
    npm ci --no-audit --no-fund
  fi
}

start_postgres() {
  if [[ -n "${TEST_DATABASE_URL:-}" ]]; then
    log "using the Postgres server at TEST_DATABASE_URL"
    return 0
  fi
  local bin dir port
  bin=$(pg_bin)
  dir=$(mktemp -d /tmp/slipway-test-pg.XXXXXX)
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  # initdb refuses to run as root: run the server as the postgres user the package created.
  local as=()
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir "$dir" postgres
    chown postgres "$dir"
    as=(runuser -u postgres --)
  fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -A trust -U postgres >/dev/null
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" start >/dev/null
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  PG_STOP=("${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop)
  PG_DIR=$dir
  log "Postgres $("$bin/postgres" --version | awk '{print $3}') listening on 127.0.0.1:$port"
}

stop_postgres() {
  if [[ -n "${PG_DIR:-}" ]]; then
    "${PG_STOP[@]}" >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}

source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
source "$(dirname "${BASH_SOURCE[0]}")/docker.sh"
source "$(dirname "${BASH_SOURCE[0]}")/powerdns.sh"

# What the tests and the benchmarks need on a fresh machine; the Postgres and PowerDNS servers stop when the script exits.
# The images build in the background (await_test_images waits for them): on a fresh machine their apt downloads
# inside the builds overlap npm ci, the servers' start, the type-check and the build.
prepare_test_machine() {
  trap 'stop_test_images; stop_postgres; stop_powerdns' EXIT
  # pebble is Let's Encrypt's test ACME server; each HTTPS test starts its own.
  # chromium renders the API reference page in its test.
  # musl-tools builds the static health probe of Swarm tasks; iproute2 and curl serve the cluster tests.
  # docker-registry is the registry an image service moves away from (image-service-move.test.ts).
  # docker.io and debootstrap make the images: every apt run (PowerDNS next) ends before the images build.
  ensure_packages caddy postgresql git procps pebble dnsutils chromium musl-tools iproute2 curl docker-registry docker.io debootstrap
  ensure_powerdns_packages
  ensure_docker_engine
  IMAGES_LOG=$(mktemp /tmp/slipway-images.XXXXXX)
  ensure_test_images >"$IMAGES_LOG" 2>&1 &
  IMAGES_PID=$!
  install_node_modules
  start_postgres
  start_powerdns
}

# Waits for the images prepare_test_machine started, prints what their builds said, and fails when one failed.
await_test_images() {
  local status=0
  [[ -n "${IMAGES_PID:-}" ]] || return 0
  log "test images"
  wait "$IMAGES_PID" || status=$?
  IMAGES_PID=
  cat "$IMAGES_LOG"
  rm -f "$IMAGES_LOG"
  return $status
}

stop_test_images() {
  [[ -n "${IMAGES_PID:-}" ]] || return 0
  kill "$IMAGES_PID" 2>/dev/null || true
  rm -f "$IMAGES_LOG"
}
