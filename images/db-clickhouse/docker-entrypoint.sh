#!/bin/bash
# Follows the official clickhouse-server image's entrypoint (ClickHouse/ClickHouse docker/server/entrypoint.sh)
# step by step, in its order and as the same users: it stays root throughout, prepares the directories, writes
# the user file, starts a private init server as clickhouse (`clickhouse su`; gosu here), creates CLICKHOUSE_DB,
# stops that server with `kill -s TERM` AS ROOT (a signal to another user's process: CAP_KILL), and only then
# execs the server as clickhouse. Differences, each forced by ClickHouse 18.16 from Debian:
# - no `clickhouse extract-from-config` and no `clickhouse su`: `config_key` below and gosu stand in for them;
# - the user file has an 18.16 root element (`yandex`), XML-escapes the password (the official one does not)
#   and leaves `access_management` out: 18.16 has no SQL-driven access control;
# - there is no watchdog to turn off.
set -eo pipefail
shopt -s nullglob

DO_CHOWN=1
if [ "${CLICKHOUSE_DO_NOT_CHOWN:-0}" = "1" ]; then
    DO_CHOWN=0
fi

CLICKHOUSE_UID="${CLICKHOUSE_UID:-"$(id -u clickhouse)"}"
CLICKHOUSE_GID="${CLICKHOUSE_GID:-"$(id -g clickhouse)"}"

# support --user
if [ "$(id -u)" = "0" ]; then
    USER=$CLICKHOUSE_UID
    GROUP=$CLICKHOUSE_GID
else
    USER="$(id -u)"
    GROUP="$(id -g)"
    DO_CHOWN=0
fi

CLICKHOUSE_CONFIG="${CLICKHOUSE_CONFIG:-/etc/clickhouse-server/config.xml}"

# The first top-level <key> of the configuration (what `clickhouse extract-from-config --key=` gives here).
config_key() {
    sed -n "s|^    <$1>\(.*\)</$1>.*|\1|p; s|^        <$1>\(.*\)</$1>.*|\1|p" "$CLICKHOUSE_CONFIG" | head -n 1
}
DATA_DIR="$(config_key path)"
TMP_DIR="$(config_key tmp_path)"
USER_PATH="$(config_key user_files_path)"
LOG_PATH="$(config_key log)"
LOG_DIR=""
if [ -n "$LOG_PATH" ]; then LOG_DIR="$(dirname "$LOG_PATH")"; fi
ERROR_LOG_PATH="$(config_key errorlog)"
ERROR_LOG_DIR=""
if [ -n "$ERROR_LOG_PATH" ]; then ERROR_LOG_DIR="$(dirname "$ERROR_LOG_PATH")"; fi
FORMAT_SCHEMA_PATH="$(config_key format_schema_path)"

CLICKHOUSE_USER="${CLICKHOUSE_USER:-default}"
CLICKHOUSE_PASSWORD="${CLICKHOUSE_PASSWORD:-}"
CLICKHOUSE_DB="${CLICKHOUSE_DB:-}"
CLICKHOUSE_ACCESS_MANAGEMENT="${CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT:-0}"

for dir in "$DATA_DIR" "$ERROR_LOG_DIR" "$LOG_DIR" "$TMP_DIR" "$USER_PATH" "$FORMAT_SCHEMA_PATH"; do
    [ -z "$dir" ] && continue
    if [ "$DO_CHOWN" = "1" ]; then
        mkdir="mkdir"
    else
        mkdir="gosu ${USER}:${GROUP} mkdir"
    fi
    if ! $mkdir -p "$dir"; then
        echo "Couldn't create necessary directory: $dir"
        exit 1
    fi
    if [ "$DO_CHOWN" = "1" ]; then
        # A recursive chown only of a directory that is not the user's yet: it may be slow.
        if [ "$(stat -c %u "$dir")" != "$USER" ] || [ "$(stat -c %g "$dir")" != "$GROUP" ]; then
            chown -R "$USER:$GROUP" "$dir"
        fi
    fi
done

xml() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }

# if clickhouse user is defined - create it (user "default" already exists out of box)
if [ -n "$CLICKHOUSE_USER" ] && [ "$CLICKHOUSE_USER" != "default" ] || [ -n "$CLICKHOUSE_PASSWORD" ] || [ "$CLICKHOUSE_ACCESS_MANAGEMENT" != "0" ]; then
    echo "$0: create new user '$CLICKHOUSE_USER' instead 'default'"
    {
        echo '<yandex><users>'
        if [ "$CLICKHOUSE_USER" != 'default' ]; then echo '<default remove="remove"/>'; fi
        echo "<$CLICKHOUSE_USER replace=\"replace\"><password>$(xml "$CLICKHOUSE_PASSWORD")</password>"
        echo "<networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></$CLICKHOUSE_USER>"
        echo '</users></yandex>'
    } > /etc/clickhouse-server/users.d/default-user.xml
fi

CLICKHOUSE_ALWAYS_RUN_INITDB_SCRIPTS="${CLICKHOUSE_ALWAYS_RUN_INITDB_SCRIPTS:-}"

# checking $DATA_DIR for initialization
if [ -d "${DATA_DIR%/}/data" ]; then
    DATABASE_ALREADY_EXISTS='true'
fi

# run initialization if flag CLICKHOUSE_ALWAYS_RUN_INITDB_SCRIPTS is not empty or data directory is empty
if [[ -n "${CLICKHOUSE_ALWAYS_RUN_INITDB_SCRIPTS}" || -z "${DATABASE_ALREADY_EXISTS}" ]]; then
    if [ -n "$(ls /docker-entrypoint-initdb.d/)" ] || [ -n "$CLICKHOUSE_DB" ]; then
        HTTP_PORT="$(config_key http_port)"
        HTTPS_PORT="$(config_key https_port)"
        if [ -n "$HTTP_PORT" ]; then
            URL="http://127.0.0.1:$HTTP_PORT/ping"
        else
            URL="https://127.0.0.1:$HTTPS_PORT/ping"
        fi

        # Listen only on localhost until the initialization is done
        gosu "${USER}:${GROUP}" /usr/sbin/clickhouse-server --config-file="$CLICKHOUSE_CONFIG" -- --listen_host=127.0.0.1 &
        pid="$!"

        tries=${CLICKHOUSE_INIT_TIMEOUT:-1000}
        while ! wget --spider --no-check-certificate -T 1 -q "$URL" 2>/dev/null; do
            if [ "$tries" -le "0" ]; then
                echo >&2 'ClickHouse init process failed.'
                exit 1
            fi
            tries=$(( tries-1 ))
            sleep 1
        done

        clickhouseclient=( clickhouse-client --multiquery --host "127.0.0.1" --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" )

        echo

        # create default database, if defined
        if [ -n "$CLICKHOUSE_DB" ]; then
            echo "$0: create database '$CLICKHOUSE_DB'"
            "${clickhouseclient[@]}" -q "CREATE DATABASE IF NOT EXISTS $CLICKHOUSE_DB";
        fi

        for f in /docker-entrypoint-initdb.d/*; do
            case "$f" in
                *.sh)
                    if [ -x "$f" ]; then
                        echo "$0: running $f"
                        "$f"
                    else
                        echo "$0: sourcing $f"
                        # shellcheck source=/dev/null
                        . "$f"
                    fi
                    ;;
                *.sql)    echo "$0: running $f"; "${clickhouseclient[@]}" < "$f" ; echo ;;
                *.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${clickhouseclient[@]}"; echo ;;
                *)        echo "$0: ignoring $f" ;;
            esac
            echo
        done

        if ! kill -s TERM "$pid" || ! wait "$pid"; then
            echo >&2 'Finishing of ClickHouse init process failed.'
            exit 1
        fi
    fi
else
    echo "ClickHouse Database directory appears to contain a database; Skipping initialization"
fi

# if no args passed to `docker run` or first argument start with `--`, then the user is passing clickhouse-server arguments
if [[ $# -lt 1 ]] || [[ "$1" == "--"* ]]; then
    if [[ "${CLICKHOUSE_DOCKER_RESTART_ON_EXIT:-0}" -eq "1" ]]; then
        while true; do
            gosu "${USER}:${GROUP}" /usr/sbin/clickhouse-server --config-file="$CLICKHOUSE_CONFIG" "$@" ||:
            echo >&2 'ClickHouse Server exited, and the environment variable CLICKHOUSE_DOCKER_RESTART_ON_EXIT is set to 1. Restarting the server.'
        done
    else
        exec gosu "${USER}:${GROUP}" /usr/sbin/clickhouse-server --config-file="$CLICKHOUSE_CONFIG" "$@"
    fi
fi

# Otherwise, we assume the user want to run his own process, for example a `bash` shell to explore this image
exec "$@"
