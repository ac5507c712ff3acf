import { KEYLESS, KEYS_OF, SUBCOMMANDS } from './redis-keys.js';

const SQL_KEYWORDS = new Set(
  `SELECT INSERT UPDATE DELETE MERGE UPSERT REPLACE WITH VALUES TABLE CREATE ALTER DROP TRUNCATE RENAME COMMENT
  GRANT REVOKE SET RESET SHOW EXPLAIN ANALYZE ANALYSE DESCRIBE DESC USE VACUUM CLUSTER REINDEX REFRESH COPY
  BEGIN START COMMIT ROLLBACK ABORT END SAVEPOINT RELEASE PREPARE EXECUTE DEALLOCATE DO CALL DECLARE FETCH CLOSE
  MOVE DISCARD LOCK UNLOCK LISTEN NOTIFY UNLISTEN LOAD CHECKPOINT REASSIGN SECURITY IMPORT HANDLER FLUSH KILL
  OPTIMIZE SYSTEM ATTACH DETACH EXISTS CHECK REPAIR INSTALL UNINSTALL PURGE XA HELP`.split(/\s+/),
);
const MONGODB_COMMANDS = new Set(
  `find insert update delete aggregate count distinct findAndModify getMore killCursors createIndexes dropIndexes
  listIndexes create drop listCollections listDatabases dropDatabase collMod renameCollection createUser updateUser
  dropUser usersInfo grantRolesToUser revokeRolesFromUser createRole updateRole dropRole rolesInfo ping buildInfo
  serverStatus dbStats collStats explain validate compact currentOp killOp hello isMaster`.split(/\s+/),
);
const SQL_ENGINES = new Set(['postgres', 'timeseries', 'mysql', 'columnar']);
const isRedisCommand = (word: string) => {
  const name = word.toUpperCase();
  return KEYS_OF.has(name) || SUBCOMMANDS.has(name) || KEYLESS.has(name);
};

/**
 * The first word of a statement, if it is a word of the engine's language (a statement keyword, a Redis
 * command, a MongoDB command); otherwise null, for a first word may be a secret typed at the wrong prompt.
 * An engine without a lexer has no known words.
 */
export function firstKeyword(engine: string, statement: string): string | null {
  if (engine === 'mongodb') {
    const name = /^\s*\{\s*"([A-Za-z]{1,32})"/.exec(statement)?.[1];
    return name !== undefined && MONGODB_COMMANDS.has(name) ? name : null;
  }
  if (!SQL_ENGINES.has(engine) && engine !== 'redis') return null;
  const word = /^[\s(]*([A-Za-z]{1,32})(?![A-Za-z0-9_$])/.exec(statement)?.[1];
  if (word === undefined) return null;
  const known = engine === 'redis' ? isRedisCommand(word) : SQL_KEYWORDS.has(word.toUpperCase());
  return known ? word : null;
}
