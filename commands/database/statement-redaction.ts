import { createHash } from 'node:crypto';
import { CLICKHOUSE_SCANNERS } from './masking/clickhouse-lexer.js';
import { firstKeyword } from './masking/first-keyword.js';
import { maskMongoCommand } from './masking/mongodb-masking.js';
import { MYSQL_SCANNERS } from './masking/mysql-lexer.js';
import { POSTGRES_SCANNERS } from './masking/postgres-lexer.js';
import { maskRedisLine } from './masking/redis-masking.js';
import { maskUnderEvery } from './masking/sql-lexer.js';

const MASKERS: Record<string, (statement: string) => string> = {
  postgres: (statement) => maskUnderEvery(POSTGRES_SCANNERS, statement),
  timeseries: (statement) => maskUnderEvery(POSTGRES_SCANNERS, statement),
  mysql: (statement) => maskUnderEvery(MYSQL_SCANNERS, statement),
  columnar: (statement) => maskUnderEvery(CLICKHOUSE_SCANNERS, statement),
  redis: maskRedisLine,
  mongodb: maskMongoCommand,
};

// Longer statements are not lexed: masking runs on the request's path, and a megabyte of tiny tokens would
// hold the event loop for seconds. They are shown as their first keyword and digest.
const LONGEST_MASKED = 100_000;

// What stands for a statement the lexer could not read: it is shown as it is when read again.
const UNREADABLE = /^(?:[A-Za-z]{1,32} )?\[unreadable statement, sha256:[0-9a-f]{16}\]$/;

function unreadable(engine: string, statement: string): string {
  const keyword = firstKeyword(engine, statement);
  const digest = createHash('sha256').update(statement).digest('hex').slice(0, 16);
  return `${keyword === null ? '' : `${keyword} `}[unreadable statement, sha256:${digest}]`;
}

/**
 * A console statement as auditors may read it, read by a lexer of the engine's own language: SQL keeps its
 * keywords, names and operators, and every literal, dollar-quoted body, comment and number is masked ('…',
 * $$…$$, /* … *\/, -- …, ?); Redis keeps the command's name and its key names, every other argument is `?`;
 * a MongoDB command document keeps its keys, every value is "…". What the lexer cannot read, reads
 * differently under some server setting, or is longer than 100,000 characters is only its first keyword (if
 * it is one) and a digest. Pure; masking a masked statement changes nothing.
 */
export function redactStatement(engine: string, statement: string): string {
  if (UNREADABLE.test(statement)) return statement;
  const mask = MASKERS[engine];
  try {
    if (mask && statement.length <= LONGEST_MASKED) return mask(statement);
  } catch {
    // Unreadable, or a lexer's own failure: either way nothing of the statement may be shown.
  }
  return unreadable(engine, statement);
}
