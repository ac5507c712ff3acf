#!/usr/bin/env bash
# Follows the official postgres image's docker-entrypoint.sh: POSTGRES_PASSWORD (required unless
# POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_USER, POSTGRES_DB, POSTGRES_INITDB_ARGS, initialisation only
# of an empty PGDATA, /docker-entrypoint-initdb.d, `-x` arguments go to postgres, other commands run as given,
# and each variable may come from a file named by `<VAR>_FILE`.
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

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

# As root, in the official script's order (docker_create_db_directories): a failed chmod is ignored, only what
# is not postgres's yet is given to it (a walk of PGDATA, which on a restart only postgres may read), then gosu.
if [ "$1" = 'postgres' ] && [ "$(id -u)" = '0' ]; then
  mkdir -p "$PGDATA"
  chmod 00700 "$PGDATA" || :
  mkdir -p /var/run/postgresql || :
  chmod 03775 /var/run/postgresql || :
  find "$PGDATA" \! -user postgres -exec chown postgres '{}' +
  find /var/run/postgresql \! -user postgres -exec chown postgres '{}' +
  exec gosu postgres "$BASH_SOURCE" "$@"
fi

if [ "$1" = 'postgres' ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  for v in POSTGRES_PASSWORD POSTGRES_USER POSTGRES_DB POSTGRES_INITDB_ARGS; do file_env "$v"; done
  if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != 'trust' ]; then
    cat >&2 <<'MSG'
Error: Database is uninitialized and superuser password is not specified.
       You must specify POSTGRES_PASSWORD to a non-empty value for the
       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".
MSG
    exit 1
  fi
  user="${POSTGRES_USER:-postgres}"
  db="${POSTGRES_DB:-$user}"
  # Without a password (trust), the superuser gets none: initdb refuses an empty password file.
  pwargs=()
  if [ -n "$POSTGRES_PASSWORD" ]; then
    pwfile="$(mktemp)"
    printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
    pwargs=(--pwfile="$pwfile")
  fi
  # shellcheck disable=SC2086
  initdb --username="$user" "${pwargs[@]}" $POSTGRES_INITDB_ARGS -D "$PGDATA"
  [ -z "${pwfile:-}" ] || rm -f "$pwfile"
  echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
  printf '\nhost all all all %s\n' "${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >> "$PGDATA/pg_hba.conf"
  # A private server on the socket only, as the official image does, for the database and init scripts; like
  # it, with the command's own settings (an hba_file among them applies from the start).
  pg_ctl -D "$PGDATA" -o "$(printf '%q ' "${@:2}" -c listen_addresses='' -p 5432)" -w start >/dev/null
  if [ "$db" != 'postgres' ]; then
    psql -v ON_ERROR_STOP=1 --username "$user" --no-password --dbname postgres --set db="$db" <<<'CREATE DATABASE :"db";' >/dev/null
  fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) . "$f" ;;
      *.sql) psql -v ON_ERROR_STOP=1 --username "$user" --no-password --dbname "$db" -f "$f" ;;
    esac
  done
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo 'PostgreSQL init process complete; ready for start up.'
fi

exec "$@"
