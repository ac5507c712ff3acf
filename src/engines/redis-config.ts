import type { ContainerFile } from '../runtime/container-runtime.js';

/** A first argument ending in `.conf` is redis-server's configuration file to the official image's entrypoint. */
export const REDIS_CONFIG_PATH = '/etc/slipway-redis/redis.conf';
/** The official image's redis user (Debian and Alpine variants alike). */
const REDIS_UID = 999;

/** A value as redis.conf reads it: double-quoted, every byte outside printable ASCII (and `"`, `\`) as `\xHH`. */
export function redisConfigValue(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const plain = byte >= 0x20 && byte <= 0x7e && byte !== 0x22 && byte !== 0x5c;
    out += plain ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return `"${out}"`;
}

/**
 * The official image reads no password variable, and an argument shows in `docker inspect` and `ps`: the
 * password goes into a configuration file only the redis user can read, written before the container starts.
 * No variable that holds it is given to the container. Append-only persistence, so a redeploy or a crash loses
 * no acknowledged write.
 */
export function redisServer(env: Record<string, string>): { env: Record<string, string>; command: string[]; files: ContainerFile[] } {
  const password = env.REDIS_PASSWORD ?? '';
  const config = ['# Written by Slipway at each deployment.', 'appendonly yes', ...(password ? [`requirepass ${redisConfigValue(password)}`] : [])];
  return {
    env: password ? Object.fromEntries(Object.entries(env).filter(([, value]) => !value.includes(password))) : env,
    command: ['redis-server', REDIS_CONFIG_PATH],
    files: [{ path: REDIS_CONFIG_PATH, content: `${config.join('\n')}\n`, mode: 0o400, uid: REDIS_UID, gid: REDIS_UID }],
  };
}
