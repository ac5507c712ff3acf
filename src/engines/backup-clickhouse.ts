import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { consumingAllInput, runTool, type BackupTarget } from './backup-tool-run.js';
import { endpointOf } from './engine-plans.js';

/**
 * clickhouse-client reads the credentials from a config file the script writes itself (XML-escaped) into a
 * private temporary directory, removed at exit: the password is on no command line. `q` queries the
 * service's database; `quoted` makes a table name an identifier.
 */
const CLIENT = String.raw`set -e
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "$*" >&2; exit 3; }
xml() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
printf '<config><user>%s</user><password>%s</password></config>\n' "$(xml "$CH_USER")" "$(xml "$CH_PASSWORD")" > "$work/client.xml"
q() { clickhouse-client --config-file "$work/client.xml" --database "$CH_DB" "$@"; }
quoted() { printf '"%s"' "$(printf '%s' "$1" | sed 's/[\\"]/\\&/g')"; }
`;

/**
 * The archive: `tables/<n>.name`, `<n>.sql` (SHOW CREATE TABLE) and, for tables that hold their own data,
 * `<n>.native` (SELECT * … FORMAT Native), numbered tables first and views last, so a view is created after
 * what it reads; then `complete`, the number of tables, as the last entry, so a cut archive is told apart.
 * ClickHouse has no snapshot: each table is read as it is when its turn comes.
 */
const DUMP = String.raw`${CLIENT}
mkdir -p "$work/archive/tables"
tab=$(printf '\t')
q --format TSVRaw --query "SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name NOT LIKE '.inner.%' ORDER BY endsWith(engine, 'View'), name" < /dev/null > "$work/list"
count=0
while IFS="$tab" read -r table engine; do
  count=$((count + 1))
  printf '%s' "$table" > "$work/archive/tables/$count.name"
  q --format TSVRaw --query "SHOW CREATE TABLE $(quoted "$table")" < /dev/null > "$work/archive/tables/$count.sql"
  case "$engine" in
    *MergeTree|*Log|Memory) q --query "SELECT * FROM $(quoted "$table") FORMAT Native" < /dev/null > "$work/archive/tables/$count.native" ;;
  esac
done < "$work/list"
echo "$count" > "$work/archive/complete"
tar -C "$work/archive" -cf - tables complete`;

/** The archive is unpacked and checked whole before any table is dropped: a damaged one changes nothing. */
const RESTORE = String.raw`${CLIENT}
mkdir "$work/archive"
tar -C "$work/archive" -xf - || fail "the archive is damaged: tar could not read it"
[ -f "$work/archive/complete" ] || fail "the archive is incomplete: it has no closing entry"
count=$(cat "$work/archive/complete")
case "$count" in ''|*[!0-9]*) fail "the archive is damaged: its closing entry is not a table count" ;; esac
tables="$work/archive/tables"
i=1
while [ "$i" -le "$count" ]; do
  [ -f "$tables/$i.name" ] && [ -s "$tables/$i.sql" ] || fail "the archive is incomplete: table $i of $count is missing"
  i=$((i + 1))
done
i=1
while [ "$i" -le "$count" ]; do
  table=$(cat "$tables/$i.name")
  q --query "DROP TABLE IF EXISTS $(quoted "$table")" < /dev/null
  q < "$tables/$i.sql"
  if [ -f "$tables/$i.native" ]; then q --query "INSERT INTO $(quoted "$table") FORMAT Native" < "$tables/$i.native"; fi
  i=$((i + 1))
done`;

function clientEnv(target: BackupTarget) {
  const { user, password, database } = endpointOf('columnar', target.env, 0, null);
  return { CH_USER: user ?? 'default', CH_PASSWORD: password ?? '', CH_DB: database ?? 'default' };
}

export async function dumpClickhouse(runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) {
  await runTool(runtime, target, 'the ClickHouse dump', { cmd: ['sh', '-c', DUMP], env: clientEnv(target), stdout: out }, signal);
}

export async function restoreClickhouse(runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) {
  await runTool(runtime, target, 'the ClickHouse restore', { cmd: consumingAllInput(RESTORE), env: clientEnv(target), stdin: dump }, signal);
}
