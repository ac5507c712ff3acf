#!/usr/bin/env bash
# A throwaway PowerDNS Authoritative server (sqlite3 backend, HTTP API on) for the DNS tests: a real
# provider to apply records through and to query with dig. Sourced after setup.sh (it uses `log`).

# The sqlite3 schema shipped with pdns-backend-sqlite3; Debian has moved it between releases.
pdns_sqlite_schema() {
  local f
  for f in /usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql /usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql; do
    [[ -f $f ]] && { echo "$f"; return 0; }
  done
  dpkg -L pdns-backend-sqlite3 2>/dev/null | grep -m 1 '/schema\.sqlite3\.sql$' || true
}

# Installs what is missing of PowerDNS, its sqlite3 backend, the sqlite3 shell and dig.
ensure_powerdns_packages() {
  local missing=()
  command -v pdns_server >/dev/null || missing+=(pdns-server)
  [[ -n "$(pdns_sqlite_schema)" ]] || missing+=(pdns-backend-sqlite3)
  command -v sqlite3 >/dev/null || missing+=(sqlite3)
  command -v dig >/dev/null || missing+=(dnsutils)
  ((${#missing[@]} == 0)) && return 0
  log "installing ${missing[*]} from Debian"
  local sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get "${APT_WAIT[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get "${APT_WAIT[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The package starts its own server where it can (port 53, bind backend); the tests run their own.
  if [[ " ${missing[*]} " == *" pdns-server "* ]]; then
    if [[ -d /run/systemd/system ]]; then
      $sudo systemctl disable --now pdns.service >/dev/null 2>&1 || true
    elif command -v invoke-rc.d >/dev/null; then
      $sudo invoke-rc.d pdns stop >/dev/null 2>&1 || true
    fi
  fi
}

# A port free on 127.0.0.1 for both TCP and UDP (DNS answers on both).
pdns_free_port() {
  node -e '
    const net = require("net"), dgram = require("dgram");
    const tryOne = (left) => {
      const s = net.createServer();
      s.listen(0, "127.0.0.1", () => {
        const port = s.address().port;
        const u = dgram.createSocket("udp4");
        u.once("error", () => { u.close(); s.close(() => (left > 0 ? tryOne(left - 1) : process.exit(1))); });
        u.bind(port, "127.0.0.1", () => { u.close(); s.close(() => console.log(port)); });
      });
    };
    tryOne(20);'
}

# Exports PDNS_TEST_URL, PDNS_TEST_API_KEY, PDNS_TEST_SERVER_ID and PDNS_TEST_DNS_PORT; stopped by stop_powerdns.
# With PDNS_TEST_URL already set, that server is used and nothing is started.
start_powerdns() {
  if [[ -n "${PDNS_TEST_URL:-}" ]]; then
    log "using the PowerDNS server at PDNS_TEST_URL"
    return 0
  fi
  ensure_powerdns_packages
  local dir api_port dns_port key schema i
  schema=$(pdns_sqlite_schema)
  [[ -n $schema ]] || { echo "the PowerDNS sqlite3 schema was not found (package pdns-backend-sqlite3)" >&2; return 1; }
  dir=$(mktemp -d /tmp/slipway-test-pdns.XXXXXX)
  api_port=$(pdns_free_port)
  dns_port=$(pdns_free_port)
  key=$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')
  sqlite3 "$dir/pdns.sqlite3" <"$schema"
  # An empty config dir and its own socket dir: /etc/powerdns and /run/pdns of the package stay out of it.
  : >"$dir/pdns.conf"
  # No packet or query cache, so dig sees each change at once; no security poll, which would query the internet.
  pdns_server --config-dir="$dir" --socket-dir="$dir" --daemon=no --guardian=no --disable-syslog --write-pid=no \
    --launch=gsqlite3 --gsqlite3-database="$dir/pdns.sqlite3" \
    --local-address=127.0.0.1 --local-port="$dns_port" \
    --api=yes --api-key="$key" --webserver=yes --webserver-address=127.0.0.1 --webserver-port="$api_port" \
    --webserver-allow-from=127.0.0.0/8 \
    --cache-ttl=0 --query-cache-ttl=0 --negquery-cache-ttl=0 --security-poll-suffix= --loglevel=4 >"$dir/log" 2>&1 &
  PDNS_PID=$!
  PDNS_DIR=$dir
  for i in $(seq 1 150); do
    node -e 'fetch(process.argv[1], { headers: { "x-api-key": process.argv[2] }, signal: AbortSignal.timeout(2000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' \
      "http://127.0.0.1:$api_port/api/v1/servers/localhost" "$key" && break
    if ! kill -0 "$PDNS_PID" 2>/dev/null || ((i == 150)); then
      cat "$dir/log" >&2
      echo "PowerDNS did not start" >&2
      stop_powerdns
      return 1
    fi
    sleep 0.1
  done
  export PDNS_TEST_URL="http://127.0.0.1:$api_port" PDNS_TEST_API_KEY=$key PDNS_TEST_SERVER_ID=localhost PDNS_TEST_DNS_PORT=$dns_port
  log "PowerDNS $(pdns_server --version 2>&1 | grep -o 'Authoritative Server [0-9.]*' | head -n 1) on 127.0.0.1:$dns_port, API at $PDNS_TEST_URL"
}

# Stops the server start_powerdns started and removes its files; does nothing otherwise, or when called again.
stop_powerdns() {
  [[ -n "${PDNS_PID:-}" ]] || return 0
  local i
  kill "$PDNS_PID" 2>/dev/null || true
  for i in $(seq 1 50); do
    kill -0 "$PDNS_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$PDNS_PID" 2>/dev/null || true
  wait "$PDNS_PID" 2>/dev/null || true
  rm -rf "$PDNS_DIR"
  unset PDNS_PID PDNS_DIR PDNS_TEST_URL PDNS_TEST_API_KEY PDNS_TEST_SERVER_ID PDNS_TEST_DNS_PORT
}
