/** What stands for a password literal in the statements auditors read. */
export const REDACTED = '[redacted]';

let tags = 0;
/**
 * A quoted literal as SQL dialects, redis-cli and JSON write them: '…' ('' or \' inside), "…" (\" inside),
 * E'…', and Postgres dollar quoting ($$…$$, $tag$…$tag$). Each use gets its own group name for the tag.
 */
function literal(): string {
  const tag = `tag${tags++}`;
  return String.raw`(?:[eE]?'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|\$(?<${tag}>[A-Za-z_]*)\$[\s\S]*?\$\k<${tag}>\$)`;
}
/** An argument of a redis-cli line, where quoting is optional. */
const word = () => String.raw`(?:${literal()}|[^\s'"]+)`;

const ACL_PASSWORD = new RegExp(String.raw`(\s)(?:"[<>#!](?:[^"\\]|\\.)*"|'[<>#!](?:[^'\\]|\\.)*'|[<>#!]${word()})`, 'g');

type Groups = Record<string, string | undefined>;
/** A rule: what to find, and its replacement from the named groups `keep` (kept before) and `user`. */
const rule = (source: string, replace: (g: Groups) => string): [RegExp, (g: Groups) => string] => [new RegExp(source, 'gi'), replace];
const keepThenRedacted = (g: Groups) => `${g.keep}${REDACTED}`;

const RULES = [
  // CREATE/ALTER USER|ROLE … [ENCRYPTED] PASSWORD '…' (Postgres); PASSWORD('…') (MySQL's old function).
  rule(String.raw`(?<keep>\bPASSWORD\s*(?:\(\s*)?)${literal()}`, keepThenRedacted),
  // SET PASSWORD [FOR user] = '…' (MySQL, MariaDB).
  rule(String.raw`(?<keep>\bSET\s+PASSWORD\s+(?:FOR\s+\S+\s*)?=\s*)${literal()}`, keepThenRedacted),
  // IDENTIFIED [WITH plugin] BY|AS [PASSWORD] '…' (MySQL, MariaDB, ClickHouse).
  rule(String.raw`(?<keep>\bIDENTIFIED\s+(?:WITH\s+\w+\s+)?(?:BY|AS)\s+(?:PASSWORD\s+)?)${literal()}`, keepThenRedacted),
  // Redis: AUTH [user] password; HELLO … AUTH user password; AUTH2 in MIGRATE.
  rule(String.raw`(?<keep>(?:^|\s)AUTH2?\s+)(?<first>${word()})(?<second>\s+${word()})?`, (g) =>
    g.second === undefined ? `${g.keep}${REDACTED}` : `${g.keep}${g.first} ${REDACTED}`),
  // Redis: CONFIG SET requirepass|masterauth …
  rule(String.raw`(?<keep>\b(?:requirepass|masterauth)\s+)${word()}`, keepThenRedacted),
  // Redis ACL SETUSER rules that carry a password or its hash: >password, <password, #hash, !hash.
  rule(String.raw`(?<keep>\bACL\s+SETUSER)(?<rules>(?:\s+${word()})+)`, (g) => `${g.keep}${g.rules!.replace(ACL_PASSWORD, `$1${REDACTED}`)}`),
  // MongoDB commands: "pwd": "…".
  rule(String.raw`(?<keep>["']?\bpwd["']?\s*:\s*)${literal()}`, keepThenRedacted),
];

/**
 * A statement as auditors may read it: password literals of user and role statements, Redis AUTH,
 * requirepass/masterauth and ACL SETUSER passwords, and MongoDB `pwd` fields replaced by `[redacted]`.
 * Pure; applying it twice changes nothing more.
 */
export function redactStatement(statement: string): string {
  return RULES.reduce(
    (text, [pattern, replace]) => text.replace(pattern, (...args: unknown[]) => replace(args.at(-1) as Groups)),
    statement,
  );
}
