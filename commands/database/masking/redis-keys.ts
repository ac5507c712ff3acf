/**
 * Where the key names are in the arguments of the common Redis commands (as COMMAND INFO gives them):
 * argument 0 is the command's name. A command that is known but has no entry here keeps only its name.
 * Where the keys are found through another argument (a count of keys, the STREAMS keyword), that argument is
 * shown too, so that a masked line is read the same way again.
 */
type KeyPositions = (args: readonly string[]) => number[];

const range = (from: number, to: number, step = 1): number[] => {
  const out: number[] = [];
  for (let i = from; i <= to; i += step) out.push(i);
  return out;
};
/** Keys from `first` to `last` (negative: counted from the end, -1 the last argument). */
const span = (first: number, last: number, step = 1): KeyPositions => (args) => range(first, last < 0 ? args.length + last : last, step);
/** A count of keys at `countAt` (shown), the keys right after it. */
const counted = (countAt: number, before: number[] = []): KeyPositions => (args) => {
  const count = /^[0-9]{1,6}$/.test(args[countAt] ?? '') ? Number(args[countAt]) : -1;
  if (count < 0) return before;
  return [...before, countAt, ...range(countAt + 1, Math.min(countAt + count, args.length - 1))];
};
/** XREAD / XREADGROUP: after STREAMS (shown), the first half of the arguments are keys. */
const streams: KeyPositions = (args) => {
  const at = args.findIndex((arg, i) => i > 0 && arg.toUpperCase() === 'STREAMS');
  if (at < 0) return [];
  return [at, ...range(at + 1, at + Math.floor((args.length - at - 1) / 2))];
};

const ONE = span(1, 1);
const ALL = span(1, -1);
const TWO = span(1, 2);

const table: [string, KeyPositions][] = [
  ...`GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX APPEND STRLEN INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE
    SETRANGE SUBSTR GETBIT SETBIT BITCOUNT BITPOS BITFIELD BITFIELD_RO TYPE TTL PTTL EXPIRE PEXPIRE EXPIREAT
    PEXPIREAT EXPIRETIME PEXPIRETIME PERSIST DUMP RESTORE HGET HSET HSETNX HMSET HMGET HDEL HLEN HSTRLEN HKEYS
    HVALS HGETALL HEXISTS HINCRBY HINCRBYFLOAT HSCAN HRANDFIELD LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE
    LINDEX LSET LREM LTRIM LINSERT LPOS SADD SREM SCARD SMEMBERS SISMEMBER SMISMEMBER SPOP SRANDMEMBER SSCAN ZADD
    ZREM ZCARD ZSCORE ZMSCORE ZINCRBY ZRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX ZREVRANGE
    ZRANK ZREVRANK ZCOUNT ZLEXCOUNT ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX ZPOPMIN ZPOPMAX ZSCAN
    ZRANDMEMBER XADD XLEN XRANGE XREVRANGE XDEL XTRIM XACK XPENDING XCLAIM XAUTOCLAIM XSETID PFADD PFDEBUG
    GEOADD GEODIST GEOHASH GEOPOS GEORADIUS GEORADIUS_RO GEORADIUSBYMEMBER GEORADIUSBYMEMBER_RO GEOSEARCH SORT
    SORT_RO LCS MOVE`
    .split(/\s+/)
    .map((name): [string, KeyPositions] => [name, name === 'LCS' ? TWO : ONE]),
  ...'DEL UNLINK EXISTS TOUCH MGET WATCH SINTER SUNION SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE PFCOUNT PFMERGE'
    .split(' ')
    .map((name): [string, KeyPositions] => [name, ALL]),
  ...'BLPOP BRPOP BZPOPMIN BZPOPMAX'.split(' ').map((name): [string, KeyPositions] => [name, span(1, -2)]),
  ...'RENAME RENAMENX RPOPLPUSH BRPOPLPUSH SMOVE LMOVE BLMOVE COPY ZRANGESTORE GEOSEARCHSTORE'.split(' ').map((name): [string, KeyPositions] => [name, TWO]),
  ['MSET', span(1, -1, 2)],
  ['MSETNX', span(1, -1, 2)],
  ['BITOP', span(2, -1)],
  ...'EVAL EVALSHA EVAL_RO EVALSHA_RO FCALL FCALL_RO'.split(' ').map((name): [string, KeyPositions] => [name, counted(2)]),
  ...'ZUNIONSTORE ZINTERSTORE ZDIFFSTORE'.split(' ').map((name): [string, KeyPositions] => [name, counted(2, [1])]),
  ...'ZUNION ZINTER ZDIFF ZINTERCARD SINTERCARD LMPOP ZMPOP'.split(' ').map((name): [string, KeyPositions] => [name, counted(1)]),
  ...'BLMPOP BZMPOP'.split(' ').map((name): [string, KeyPositions] => [name, counted(2)]),
  ['XREAD', streams],
  ['XREADGROUP', streams],
];

export const KEYS_OF: ReadonlyMap<string, KeyPositions> = new Map(table);

/** Commands with subcommands: the subcommands shown by name, and where each one's key is (if it has one). */
export const SUBCOMMANDS: ReadonlyMap<string, ReadonlyMap<string, KeyPositions | null>> = new Map(
  Object.entries({
    OBJECT: 'ENCODING:key FREQ:key IDLETIME:key REFCOUNT:key HELP',
    MEMORY: 'USAGE:key DOCTOR MALLOC-STATS PURGE STATS HELP',
    XINFO: 'STREAM:key GROUPS:key CONSUMERS:key HELP',
    XGROUP: 'CREATE:key SETID:key DESTROY:key CREATECONSUMER:key DELCONSUMER:key HELP',
    CONFIG: 'GET SET RESETSTAT REWRITE HELP',
    ACL: 'CAT DELUSER DRYRUN GENPASS GETUSER LIST LOAD LOG SAVE SETUSER USERS WHOAMI HELP',
    CLIENT: 'CACHING GETNAME GETREDIR ID INFO KILL LIST NO-EVICT NO-TOUCH PAUSE REPLY SETINFO SETNAME TRACKING TRACKINGINFO UNBLOCK UNPAUSE HELP',
    SCRIPT: 'EXISTS FLUSH KILL LOAD DEBUG HELP',
    FUNCTION: 'DELETE DUMP FLUSH KILL LIST LOAD RESTORE STATS HELP',
    SLOWLOG: 'GET LEN RESET HELP',
    LATENCY: 'DOCTOR GRAPH HISTOGRAM HISTORY LATEST RESET HELP',
    COMMAND: 'COUNT DOCS GETKEYS GETKEYSANDFLAGS INFO LIST HELP',
    PUBSUB: 'CHANNELS NUMPAT NUMSUB SHARDCHANNELS SHARDNUMSUB HELP',
    MODULE: 'LIST LOAD LOADEX UNLOAD HELP',
    CLUSTER: 'INFO NODES SLOTS SHARDS MYID MYSHARDID KEYSLOT COUNTKEYSINSLOT GETKEYSINSLOT LINKS HELP',
  }).map(([name, list]) => [
    name,
    new Map(list.split(' ').map((entry) => {
      const [sub, key] = entry.split(':');
      return [sub!, key ? span(2, 2) : null];
    })),
  ]),
);

/** Known commands with no key, shown by name only. Anything else is not a command: its name is masked too. */
export const KEYLESS = new Set(
  `PING ECHO SELECT DBSIZE FLUSHDB FLUSHALL INFO TIME KEYS SCAN RANDOMKEY MULTI EXEC DISCARD UNWATCH AUTH HELLO
  QUIT RESET SAVE BGSAVE BGREWRITEAOF LASTSAVE SHUTDOWN MONITOR PUBLISH SPUBLISH SUBSCRIBE SSUBSCRIBE PSUBSCRIBE
  UNSUBSCRIBE SUNSUBSCRIBE PUNSUBSCRIBE SWAPDB WAIT WAITAOF ROLE REPLICAOF SLAVEOF LOLWUT FAILOVER READONLY
  READWRITE ASKING SYNC PSYNC DEBUG MIGRATE`.split(/\s+/),
);
