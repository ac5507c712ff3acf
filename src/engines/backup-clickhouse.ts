import type { Readable, Writable } from 'node:stream';
import type { ContainerRuntime } from '../runtime/container-runtime.js';
import { runTool, type BackupTarget } from './backup-tools.js';

/**
 * clickhouse-client with the credentials in a client config file it writes itself (XML-escaped), so the
 * password is on no command line; `q` queries the service's database.
 */
const CLIENT = `set -e
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
esc() { printf '%s' "$1" | sed -e 's/&/\\&amp;/g' -e 's/</\\&lt;/g' -e 's/>/\\&gt;/g'; }
printf '<config><user>%s</user><password>%s</password></config>' "$(esc "$CH_USER")" "$(esc "$CH_PASSWORD")" > "$work/client.xml"
q() { clickhouse-client --config-file "$work/client.xml" --database "$CH_DB" "$@"; }
quoted() { printf '\`%s\`' "$(printf '%s' "$1" | sed 's/[\\\\\`]/\\\\&/g')"; }
`;

/** One archive: for every table, numbered files for its name, its CREATE statement and its data in Native format. */
const DUMP = `${CLIENT}
mkdir "$work/archive"
q --query "SELECT engine, name FROM system.tables WHERE database = currentDatabase() AND name NOT LIKE '.inner.%' ORDER BY name" --format TSVRaw > "$work/tables"
i=0
while IFS= read -r line; do
  i=$((i + 1))
  engine=\${line%%$'\\t'*}
  t=\${line#*$'\\t'}
  printf '%s' "$t" > "$work/archive/$i.name"
  q --query "SHOW CREATE TABLE $(quoted "$t")" --format TSVRaw > "$work/archive/$i.sql"
  case "$engine" in *View) ;; *) q --query "SELECT * FROM $(quoted "$t") FORMAT Native" > "$work/archive/$i.native" ;; esac
done < "$work/tables"
tar -C "$work/archive" -cf - .`;

/** The archive is unpacked completely before anything is dropped: a damaged one changes nothing. */
const RESTORE = `${CLIENT}
mkdir "$work/archive"
tar -C "$work/archive" -xf - || { echo "the archive is damaged" >&2; exit 3; }
for f in "$work"/archive/*.name; do [ -e "$f" ] || { echo "the archive holds no tables" >&2; exit 3; }; [ -s "\${f%.name}.sql" ] || { echo "the archive is incomplete" >&2; exit 3; }; done
for f in $(ls "$work"/archive/*.name | sort -t/ -k2 -n); do
  base=\${f%.name}
  t=$(cat "$f")
  q --query "DROP TABLE IF EXISTS $(quoted "$t")"
  q --query "$(cat "$base.sql")"
  if [ -e "$base.native" ]; then q --query "INSERT INTO $(quoted "$t") FORMAT Native" < "$base.native"; fi
done`;

const clientEnv = (env: Record<string, string>) => ({
  CH_USER: env.CLICKHOUSE_USER || 'default',
  CH_PASSWORD: env.CLICKHOUSE_PASSWORD ?? '',
  CH_DB: env.CLICKHOUSE_DB || 'default',
});

export const clickhouseDump = (runtime: ContainerRuntime, target: BackupTarget, out: Writable, signal: AbortSignal) =>
  runTool(runtime, target, 'the ClickHouse dump', { cmd: ['bash', '-c', DUMP], env: clientEnv(target.env), stdout: out }, signal);

export const clickhouseRestore = (runtime: ContainerRuntime, target: BackupTarget, dump: Readable, signal: AbortSignal) =>
  runTool(runtime, target, 'the ClickHouse restore', { cmd: ['bash', '-c', RESTORE], env: clientEnv(target.env), stdin: dump }, signal);
