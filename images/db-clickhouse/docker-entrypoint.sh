#!/usr/bin/env bash
# Follows the official clickhouse-server image's entrypoint: the user from CLICKHOUSE_USER (default
# `default`) with CLICKHOUSE_PASSWORD, rewritten at every start; CLICKHOUSE_DB created when missing.
# CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT is accepted and ignored: 18.16 has no SQL-driven access control.
set -Eeo pipefail
CONFIG=/etc/clickhouse-server/config.xml

# No command, or only `--setting` arguments: they go to the server, as in the official image.
if [ $# -lt 1 ] || [ "${1:0:2}" = '--' ]; then set -- clickhouse-server "$@"; fi

if [ "$1" = 'clickhouse-server' ] && [ "$(id -u)" = '0' ]; then
  chown -R clickhouse:clickhouse /var/lib/clickhouse /var/log/clickhouse-server /etc/clickhouse-server/users.d
  exec gosu clickhouse "$BASH_SOURCE" "$@"
fi

xml() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

if [ "$1" = 'clickhouse-server' ]; then
  shift
  user="${CLICKHOUSE_USER:-default}"
  [[ "$user" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || { echo >&2 "CLICKHOUSE_USER must be a plain name"; exit 1; }
  {
    echo '<yandex><users>'
    if [ "$user" != 'default' ]; then echo '<default remove="remove"/>'; fi
    echo "<$user replace=\"replace\"><password>$(xml "${CLICKHOUSE_PASSWORD:-}")</password>"
    echo '<networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></'"$user"'>'
    echo '</users></yandex>'
  } > /etc/clickhouse-server/users.d/default-user.xml
  if [ -n "$CLICKHOUSE_DB" ]; then
    # Like the official image, the private init server listens on loopback only, so no client meets it.
    clickhouse-server --config-file="$CONFIG" -- --listen_host=127.0.0.1 >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 120); do clickhouse-client --user "$user" --password "${CLICKHOUSE_PASSWORD:-}" --query 'SELECT 1' >/dev/null 2>&1 && break; sleep 0.25; done
    clickhouse-client --user "$user" --password "${CLICKHOUSE_PASSWORD:-}" --query "CREATE DATABASE IF NOT EXISTS \`${CLICKHOUSE_DB//\`/}\`"
    kill "$pid"; wait "$pid" || true
  fi
  exec clickhouse-server --config-file="$CONFIG" "$@"
fi
exec "$@"
