import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats } from 'node:fs';
import { join, posix } from 'node:path';
import type { ProjectFiles } from './packbuilder/detect.js';

/** The kernel's MAXSYMLINKS: how many links one path may go through before it counts as a loop. */
const MAX_LINK_HOPS = 40;
/** Manifests, lockfiles, Procfiles and Dockerfiles are small; a larger one is refused rather than held whole. */
export const MAX_CHECKOUT_FILE_BYTES = 1024 * 1024;

/**
 * A path of the repository Slipway will not follow or read. The message names the path in the repository
 * and what is wrong with it, never where a link points nor anything read there.
 */
export class CheckoutRefusal extends Error {}

export interface CheckoutEntry {
  kind: 'file' | 'directory';
  /** The absolute path on this machine, every link resolved; always inside the checkout. */
  realPath: string;
  stats: Stats;
}

/** One path component still to walk, and the repository path of the link whose target it came from. */
interface Pending {
  part: string;
  via: string | null;
}

const NOT_THERE = new Set(['ENOENT', 'ENOTDIR']);

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (fifo)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file or directory';
}

/** A repository path as the user wrote it, without a leading `./`. */
const shown = (path: string) => path.replace(/^(\.\/)+/, '');

const components = (path: string, via: string | null): Pending[] => path.split('/').map((part) => ({ part, via }));

/**
 * The files of one checkout, as a hostile repository may have laid them out. Every read, stat and existence
 * check of a checkout goes through here: a path is walked component by component with `lstat`, and a
 * symbolic link is followed only while it stays inside the checkout (`openat2(RESOLVE_BENEATH)`, which Node
 * does not offer, refusing instead of clamping). Refused: a link or `..` leading out, more than 40 links,
 * devices, fifos and sockets, and regular files with more than one hard link (git never makes those).
 * Nothing here writes: files Slipway generates go elsewhere (the build context's own tar entry).
 */
export class Checkout {
  /** The checkout's directory, itself resolved: Slipway made it, so its own path is trusted. */
  readonly root: string;

  constructor(directory: string) {
    this.root = realpathSync(directory);
  }

  /** Where `path` (relative to the repository root) leads inside the checkout; null when nothing is there. */
  resolve(path: string): CheckoutEntry | null {
    const asked = shown(path);
    const leaves = (via: string | null) =>
      new CheckoutRefusal(
        via === null
          ? `${asked} leaves the repository`
          : via === posix.normalize(path)
            ? `${asked} is a symbolic link that leaves the repository`
            : `${asked} leads out of the repository through the symbolic link ${via}`,
      );
    if (posix.isAbsolute(path)) throw new CheckoutRefusal(`${path} is not a path inside the repository`);
    // Real directories walked so far, below the root.
    let inside: string[] = [];
    let pending = components(path, null);
    let hops = 0;
    for (let next = pending.shift(); next; next = pending.shift()) {
      const { part, via } = next;
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (inside.length === 0) throw leaves(via);
        inside = inside.slice(0, -1);
        continue;
      }
      const here = [...inside, part];
      const full = join(this.root, ...here);
      let stats: Stats;
      try {
        stats = lstatSync(full);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        if (NOT_THERE.has(code)) return null;
        throw new CheckoutRefusal(`${asked} cannot be read (${code})`);
      }
      if (stats.isSymbolicLink()) {
        if (++hops > MAX_LINK_HOPS) throw new CheckoutRefusal(`${asked} goes through too many symbolic links`);
        const link = here.join('/');
        const target = readlinkSync(full);
        if (posix.isAbsolute(target)) {
          // Only a target spelled under the checkout's own path; the rest of it is walked like any other.
          if (target !== this.root && !target.startsWith(`${this.root}/`)) throw leaves(link);
          inside = [];
          pending = [...components(target.slice(this.root.length), link), ...pending];
        } else {
          pending = [...components(target, link), ...pending];
        }
        continue;
      }
      if (stats.isDirectory()) {
        inside = here;
        continue;
      }
      if (!stats.isFile()) throw new CheckoutRefusal(`${asked} is ${kindOf(stats)}`);
      // A file with more to walk below it: like the kernel's ENOTDIR, nothing is there.
      if (pending.some((p) => p.part !== '' && p.part !== '.')) return null;
      if (stats.nlink > 1) throw new CheckoutRefusal(`${asked} has more than one hard link`);
      return { kind: 'file', realPath: full, stats };
    }
    const realPath = join(this.root, ...inside);
    return { kind: 'directory', realPath, stats: lstatSync(realPath) };
  }

  isFile(path: string): boolean {
    return this.resolve(path)?.kind === 'file';
  }

  /** The real directory `path` leads to, or null when it is missing or not a directory. */
  directory(path: string): string | null {
    const found = this.resolve(path);
    return found?.kind === 'directory' ? found.realPath : null;
  }

  /**
   * The text of a regular file, or null when nothing is there. Opened without following a link (the walk
   * resolved them all) and checked again on the open descriptor, so what is read is what was checked.
   */
  read(path: string, maxBytes = MAX_CHECKOUT_FILE_BYTES): string | null {
    const found = this.resolve(path);
    if (!found) return null;
    const asked = shown(path);
    if (found.kind !== 'file') throw new CheckoutRefusal(`${asked} is a directory, not a file`);
    // O_NONBLOCK: opening a fifo swapped in meanwhile must not wait for a writer.
    const fd = openSync(found.realPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile() || opened.ino !== found.stats.ino || opened.dev !== found.stats.dev || opened.nlink > 1) {
        throw new CheckoutRefusal(`${asked} changed while it was read`);
      }
      if (opened.size > maxBytes) throw new CheckoutRefusal(`${asked} is larger than ${Math.floor(maxBytes / 1024)} KiB`);
      const buffer = Buffer.alloc(opened.size);
      let filled = 0;
      while (filled < buffer.length) {
        const n = readSync(fd, buffer, filled, buffer.length - filled, null);
        if (n === 0) break;
        filled += n;
      }
      return buffer.toString('utf8', 0, filled);
    } finally {
      closeSync(fd);
    }
  }

  /** The files below `directory` (a repository path), as the packbuilder looks at them. */
  filesIn(directory: string): ProjectFiles {
    const at = (name: string) => posix.join(directory, name);
    return { has: (name) => this.isFile(at(name)), read: (name) => this.read(at(name)) };
  }
}
