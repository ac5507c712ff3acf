import { chmodSync, constants, createWriteStream, lstatSync, mkdirSync, renameSync, writeFileSync, type WriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/*
 * Files Slipway keeps for itself in its data directory (build directories, the Git credentials file,
 * backups): directories 0700, files 0600, created exclusively and opened without following a link, so a
 * link planted where one of them goes can neither redirect a write nor be read through.
 */

/** `path` as a directory only its owner can enter; created (0700) if missing, tightened if wider; never a link. */
export function privateDirectory(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stats = lstatSync(path);
  if (!stats.isDirectory()) throw new Error(`${path} is not a directory (a symbolic link or a file is in its place)`);
  if ((stats.mode & 0o077) !== 0) chmodSync(path, 0o700);
}

/** Creates `path` (0600) with `content`; fails if anything, a link included, is already there. */
export function writePrivateFile(path: string, content: string): void {
  writeFileSync(path, content, { mode: 0o600, flag: 'wx' });
}

/** A stream creating `path` (0600); it fails if anything, a link included, is already there. */
export function createPrivateFile(path: string): WriteStream {
  return createWriteStream(path, { flags: 'wx', mode: 0o600 });
}

export interface OpenedFile {
  handle: FileHandle;
  size: number;
}

/** The regular file at `path`, opened without following a link, and its size; null when nothing is there. */
export async function openPrivateFile(path: string): Promise<OpenedFile | null> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a fifo in its place must not hold the open until someone writes to it.
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const stats = await handle.stat();
  if (!stats.isFile()) {
    await handle.close();
    throw new Error(`${path} is not a regular file`);
  }
  return { handle, size: stats.size };
}

/**
 * The JSON kept at `path`, or, when nothing is there yet, what `create` makes, written aside (0600) and renamed
 * into place: a crash leaves the old file or the new one, never half of one.
 */
export async function privateJson<T>(path: string, schema: { parse(data: unknown): T }, create: () => Promise<T>): Promise<T> {
  const opened = await openPrivateFile(path);
  if (opened) {
    try {
      return schema.parse(JSON.parse((await opened.handle.readFile()).toString('utf8')));
    } finally {
      await opened.handle.close();
    }
  }
  const created = await create();
  const aside = `${path}.${process.pid}.new`;
  writePrivateFile(aside, JSON.stringify(created));
  renameSync(aside, path);
  return created;
}
