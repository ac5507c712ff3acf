#!/usr/bin/env bash
# Follows the official mysql image's entrypoint: MYSQL_ROOT_PASSWORD (or MYSQL_ALLOW_EMPTY_PASSWORD /
# MYSQL_RANDOM_ROOT_PASSWORD), MYSQL_DATABASE, MYSQL_USER + MYSQL_PASSWORD, root from MYSQL_ROOT_HOST (default any),
# initialisation only of an empty data directory, `-x` arguments go to the server, and each variable may
# come from a file named by `<VAR>_FILE`.
set -Eeo pipefail

# `VAR_FILE` names a file that holds VAR's value (Docker secrets), as in the official entrypoints.
file_env() {
  local var="$1" file="${1}_FILE" def="${2:-}"
  if [ -n "${!var:-}" ] && [ -n "${!file:-}" ]; then echo >&2 "error: both $var and $file are set (but are exclusive)"; exit 1; fi
  local val="$def"
  if [ -n "${!var:-}" ]; then val="${!var}"; elif [ -n "${!file:-}" ]; then val="$(< "${!file}")"; fi
  export "$var"="$val"
  unset "$file"
}

if [ "${1:0:1}" = '-' ]; then set -- mysqld "$@"; fi
if [ "$1" = 'mysqld' ]; then shift; set -- mariadbd "$@"; fi

# As root, in the official script's order (docker_create_db_directories): only what is not mysql's yet is given
# to it (a walk of the data directory, which on a restart only mysql may read), then gosu.
if [ "$1" = 'mariadbd' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p /var/lib/mysql /run/mysqld
  find /var/lib/mysql /run/mysqld \! -user mysql -exec chown --no-dereference mysql '{}' +
  exec gosu mysql "$BASH_SOURCE" "$@"
fi

# Quotes a value for a single-quoted SQL string.
sql_string() { printf "'%s'" "$(printf '%s' "$1" | sed -e "s/\\\\/\\\\\\\\/g" -e "s/'/''/g")"; }
sql_name() { printf '`%s`' "$(printf '%s' "$1" | sed -e 's/`/``/g')"; }

if [ "$1" = 'mariadbd' ] && [ ! -d /var/lib/mysql/mysql ]; then
  for v in MYSQL_ROOT_PASSWORD MYSQL_DATABASE MYSQL_USER MYSQL_PASSWORD; do file_env "$v"; done
  file_env MYSQL_ROOT_HOST '%'
  if [ -z "$MYSQL_ROOT_PASSWORD" ] && [ -z "$MYSQL_ALLOW_EMPTY_PASSWORD" ] && [ -z "$MYSQL_RANDOM_ROOT_PASSWORD" ]; then
    echo >&2 'error: database is uninitialized and password option is not specified'
    echo >&2 '  You need to specify one of the following as an environment variable:'
    echo >&2 '  - MYSQL_ROOT_PASSWORD'
    echo >&2 '  - MYSQL_ALLOW_EMPTY_PASSWORD'
    echo >&2 '  - MYSQL_RANDOM_ROOT_PASSWORD'
    exit 1
  fi
  if [ -n "$MYSQL_RANDOM_ROOT_PASSWORD" ]; then
    MYSQL_ROOT_PASSWORD="$(head -c 24 /dev/urandom | base64)"
    echo "GENERATED ROOT PASSWORD: $MYSQL_ROOT_PASSWORD"
  fi
  mariadb-install-db --datadir=/var/lib/mysql --skip-test-db --auth-root-authentication-method=normal >/dev/null
  "$@" --skip-networking --socket=/run/mysqld/mysqld.sock &
  pid=$!
  for _ in $(seq 1 60); do mariadb-admin --socket=/run/mysqld/mysqld.sock ping >/dev/null 2>&1 && break; sleep 0.5; done
  root="$(sql_string "$MYSQL_ROOT_PASSWORD")"
  {
    echo "DELETE FROM mysql.user WHERE user NOT IN ('mysql.sys', 'mariadb.sys', 'root') OR host NOT IN ('localhost');"
    echo "ALTER USER 'root'@'localhost' IDENTIFIED BY $root;"
    if [ "$MYSQL_ROOT_HOST" != 'localhost' ]; then
      echo "CREATE USER 'root'@$(sql_string "$MYSQL_ROOT_HOST") IDENTIFIED BY $root; GRANT ALL ON *.* TO 'root'@$(sql_string "$MYSQL_ROOT_HOST") WITH GRANT OPTION;"
    fi
    if [ -n "$MYSQL_DATABASE" ]; then echo "CREATE DATABASE IF NOT EXISTS $(sql_name "$MYSQL_DATABASE");"; fi
    if [ -n "$MYSQL_USER" ] && [ -n "$MYSQL_PASSWORD" ]; then
      echo "CREATE USER $(sql_string "$MYSQL_USER")@'%' IDENTIFIED BY $(sql_string "$MYSQL_PASSWORD");"
      if [ -n "$MYSQL_DATABASE" ]; then echo "GRANT ALL ON $(sql_name "$MYSQL_DATABASE").* TO $(sql_string "$MYSQL_USER")@'%';"; fi
    fi
    echo 'FLUSH PRIVILEGES;'
  } | mariadb --socket=/run/mysqld/mysqld.sock -uroot
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) . "$f" ;;
      *.sql) mariadb --socket=/run/mysqld/mysqld.sock -uroot --password="$MYSQL_ROOT_PASSWORD" ${MYSQL_DATABASE:+"$MYSQL_DATABASE"} < "$f" ;;
    esac
  done
  mariadb-admin --socket=/run/mysqld/mysqld.sock -uroot --password="$MYSQL_ROOT_PASSWORD" shutdown
  wait "$pid" || true
  echo 'MySQL init process done. Ready for start up.'
fi

exec "$@"
