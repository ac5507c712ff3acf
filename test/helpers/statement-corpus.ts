/** Hostile console statements per engine, and what auditors may read of each. */
// The secret every hostile statement tries to keep in the history; none of its pieces may come through.
export const SECRET = /S3|cret/i;
export const UNREADABLE = (keyword: string) => new RegExp(`^${keyword}${keyword ? ' ' : ''}\\[unreadable statement, sha256:[0-9a-f]{16}\\]$`);

export type Case = [statement: string, expected: string | RegExp];

export const POSTGRES: Case[] = [
  ["ALTER USER app PASSWORD 'S3cret'", "ALTER USER app PASSWORD '…'"],
  ["ALTER USER app PASSWORD U&'S3cret'", "ALTER USER app PASSWORD '…'"],
  ["ALTER USER app PASSWORD u&'\\0053\\0033cret' UESCAPE '!'", "ALTER USER app PASSWORD '…' UESCAPE '…'"],
  ["ALTER USER app PASSWORD /* c */ 'S3cret'", "ALTER USER app PASSWORD /* … */ '…'"],
  ["ALTER USER app PASSWORD -- the new one\n'S3cret'", "ALTER USER app PASSWORD -- …\n'…'"],
  ["ALTER USER app PASSWORD 'S3c'\n'ret'", "ALTER USER app PASSWORD '…'\n'…'"],
  ["ALTER USER app PASSWORD(('S3cret'))", "ALTER USER app PASSWORD(('…'))"],
  ["EXECUTE format('ALTER USER app PASSWORD %L', 'S3cret')", "EXECUTE format('…', '…')"],
  ["ALTER ROLE r PASSWORD E'S3\\'cret'", "ALTER ROLE r PASSWORD '…'"],
  ["ALTER ROLE r PASSWORD E'\\'' || 'S3cret'", "ALTER ROLE r PASSWORD '…' || '…'"],
  ["ALTER ROLE r PASSWORD 'S3''cret'", "ALTER ROLE r PASSWORD '…'"],
  ["ALTER ROLE r PASSWORD N'S3cret'", "ALTER ROLE r PASSWORD '…'"],
  ["SELECT /* a /* nested */ 'S3cret' */ 1", 'SELECT /* … */ ?'],
  ["ALTER ROLE r PASSWORD $pw$S3'cret$pw$", 'ALTER ROLE r PASSWORD $$…$$'],
  ["DO $body$ BEGIN EXECUTE 'ALTER USER app PASSWORD ''S3cret'''; END $body$", 'DO $$…$$'],
  ['SELECT $a$ $b$ S3cret $b$ $a$', 'SELECT $$…$$'],
  ["SELECT set_config('app.password', 'S3cret', false)", "SELECT set_config('…', '…', false)"],
  ["SELECT md5('S3cret' || 'salt'), B'0101', X'ff'", "SELECT md5('…' || '…'), '…', '…'"],
  ['SELECT 42, -12.5e-3, 0x1F, 0o17, 1_000, .5, 3E+2', 'SELECT ?, -?, ?, ?, ?, ?, ?'],
  ['SELECT "Pass""word", a$b FROM "my table" t WHERE t.id = $1', 'SELECT "Pass""word", a$b FROM "my table" t WHERE t.id = $1'],
  ["CREATE ROLE r LOGIN ENCRYPTED PASSWORD 'S3cret' VALID UNTIL 'infinity'", "CREATE ROLE r LOGIN ENCRYPTED PASSWORD '…' VALID UNTIL '…'"],
  // Unterminated, or read differently when standard_conforming_strings is off: only the keyword and a digest.
  ["ALTER USER app PASSWORD 'S3cret", UNREADABLE('ALTER')],
  ['SELECT $x$S3cret', UNREADABLE('SELECT')],
  ['SELECT 1 /* S3cret', UNREADABLE('SELECT')],
  ["ALTER USER app PASSWORD 'x\\' S3cret 'y'", UNREADABLE('ALTER')],
  ["SELECT 1E'S3cret'", UNREADABLE('SELECT')],
  ["S3cret 'x", UNREADABLE('')],
  ['SELECT "S3cret', UNREADABLE('SELECT')],
];

const MYSQL: Case[] = [
  ["ALTER USER 'app'@'%' IDENTIFIED BY 'S3cret'", "ALTER USER '…'@'…' IDENTIFIED BY '…'"],
  ["CREATE USER app IDENTIFIED WITH caching_sha2_password BY \"S3cret\"", "CREATE USER app IDENTIFIED WITH caching_sha2_password BY '…'"],
  ["SET PASSWORD FOR app = PASSWORD(('S3cret'))", "SET PASSWORD FOR app = PASSWORD(('…'))"],
  ["SET PASSWORD = /* c */ 'S3cret'", "SET PASSWORD = /* … */ '…'"],
  ["SET PASSWORD = # here\n'S3cret'", "SET PASSWORD = -- …\n'…'"],
  ["SET PASSWORD = -- here\n'S3cret'", "SET PASSWORD = -- …\n'…'"],
  ['SELECT 1--1', 'SELECT ?--?'],
  ["SELECT 0x533363726574, X'533363726574', b'0101', _utf8'S3cret', _binary 'S3cret', N'S3cret'", "SELECT ?, X'…', b'…', _utf8'…', _binary '…', N'…'"],
  ["SELECT 'S3''cret', \"S3\"\"cret\", 'a\\\\', 'b'", "SELECT '…', '…', '…', '…'"],
  ["SELECT @pw := 'S3cret', @`v` FROM `my``table`", "SELECT @pw := '…', @`v` FROM `my``table`"],
  ['SELECT /*! STRAIGHT_JOIN */ a FROM t', 'SELECT /* … */ a FROM t'],
  // A backslash before a quote reads differently under NO_BACKSLASH_ESCAPES; the rest cannot be read.
  ["ALTER USER app IDENTIFIED BY 'S3\\'cret'", UNREADABLE('ALTER')],
  ["SELECT 'a\\' , S3cret, '' '", UNREADABLE('SELECT')],
  ["/*!50000 ALTER USER app IDENTIFIED BY 'S3cret' */", UNREADABLE('')],
  ['SELECT /* a /* b */ S3cret */ 1', UNREADABLE('SELECT')],
  ["ALTER USER app IDENTIFIED BY 'S3cret", UNREADABLE('ALTER')],
];

const CLICKHOUSE: Case[] = [
  ["CREATE USER app IDENTIFIED WITH plaintext_password BY 'S3cret'", "CREATE USER app IDENTIFIED WITH plaintext_password BY '…'"],
  ["ALTER USER app IDENTIFIED BY 'S3\\'cret'", "ALTER USER app IDENTIFIED BY '…'"],
  ["ALTER USER app IDENTIFIED BY 'S3''cret' -- S3cret", "ALTER USER app IDENTIFIED BY '…' -- …"],
  ["SELECT \"col\\\"x\", `c``d` FROM t WHERE x = 'S3cret'", "SELECT \"col\\\"x\", `c``d` FROM t WHERE x = '…'"],
  ["INSERT INTO t VALUES ('S3cret', 42, -1.5e10, 0xFF)", "INSERT INTO t VALUES ('…', ?, -?, ?)"],
  ['SELECT $$S3cret$$', UNREADABLE('SELECT')],
  ['SELECT /* /* */ S3cret */ 1', UNREADABLE('SELECT')],
  ['SELECT 1 # S3cret', UNREADABLE('SELECT')],
  ["ALTER USER app IDENTIFIED BY 'S3cret", UNREADABLE('ALTER')],
];

const REDIS: Case[] = [
  ['AUTH S3cret', 'AUTH ?'],
  ['auth default "S3 cret"', 'auth ? ?'],
  ['HELLO 3 AUTH default S3cret', 'HELLO ? ? ? ?'],
  ['CONFIG SET requirepass S3cret', 'CONFIG SET ? ?'],
  ["config set masterauth 'S3cret'", 'config set ? ?'],
  ['ACL SETUSER alice on >S3cret ~* +@all', 'ACL SETUSER ? ? ? ? ?'],
  ['SET session:1 S3cret EX 60', 'SET session:1 ? ? ?'],
  ["SET \"my key\" 'S3cret'", 'SET "my key" ?'],
  ['MSET a S3cret b S3cret', 'MSET a ? b ?'],
  ['HSET user:1 password S3cret', 'HSET user:1 ? ?'],
  ['EVAL "redis.call(\'set\', KEYS[1], ARGV[1])" 1 k S3cret', 'EVAL ? 1 k ?'],
  ['XREAD COUNT 2 STREAMS s1 s2 0 0', 'XREAD ? ? STREAMS s1 s2 ? ?'],
  ['OBJECT ENCODING mykey', 'OBJECT ENCODING mykey'],
  ['CLIENT S3cret', 'CLIENT ?'],
  ['DEL a b "c d"', 'DEL a b "c d"'],
  ['GET "k\\x00\\xff\\n"', 'GET "k\\x00\\xff\\n"'],
  ['MIGRATE 10.0.0.1 6379 "" 0 5000 AUTH S3cret KEYS a', 'MIGRATE ? ? ? ? ? ? ? ? ?'],
  ['S3cret', '?'],
  ['S3cret S3cret', '? ?'],
  ['AUTH "S3cret', UNREADABLE('AUTH')],
  ["SET k 'S3cret'x", UNREADABLE('SET')],
];

const MONGODB: Case[] = [
  ['{"createUser": "app", "pwd": "S3cret", "roles": [{"role": "readWrite", "db": "x"}]}', '{"createUser":"…","pwd":"…","roles":[{"role":"…","db":"…"}]}'],
  ['{"updateUser": "app", "pwd": "S3cret", "digestPassword": true}', '{"updateUser":"…","pwd":"…","digestPassword":"…"}'],
  ['{"find": "users", "filter": {"token": "S3cret", "n": 42, "deleted": null, "tags": ["S3cret"]}}', '{"find":"…","filter":{"token":"…","n":"…","deleted":"…","tags":["…"]}}'],
  ['{"insert": "u", "documents": [{"hash": {"$binary": {"base64": "UzNjcmV0", "subType": "00"}}}]}', '{"insert":"…","documents":[{"hash":{"$binary":{"base64":"…","subType":"…"}}}]}'],
  ['"S3cret"', '"…"'],
  ["{\"createUser\": \"app\", pwd: 'S3cret'}", UNREADABLE('createUser')],
  ['{"S3cret": ', UNREADABLE('')],
];

export const CORPUS: Record<string, Case[]> = { postgres: POSTGRES, timeseries: POSTGRES, mysql: MYSQL, columnar: CLICKHOUSE, redis: REDIS, mongodb: MONGODB };

