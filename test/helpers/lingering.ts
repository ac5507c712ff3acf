import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import t from 'tap';
import { heldByAnInterval, heldByTimers } from './pending-timers.js';

/**
 * How long a test file may stay alive after its last test: a handle that holds it longer is a leak. Longer than
 * puppeteer's own waits (30 s by default), which a race lost at the end of a browser test leaves running.
 */
const GRACE_MS = 40_000;

/** What keeps this process alive: the kinds of resource, and each handle's peer or program where it has one. */
export function whatIsAlive(): string {
  const handles = (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles();
  const described = handles.map((h) => {
    const socket = h as { remoteAddress?: string; remotePort?: number; localPort?: number; _host?: string; path?: string };
    const child = h as { spawnfile?: string; spawnargs?: string[] };
    const held = (h as { _handle?: { hasRef?: () => boolean } })._handle?.hasRef?.() === false ? '(unref: holds nothing)' : undefined;
    const peer = [socket.remoteAddress ?? socket._host ?? socket.path, socket.remotePort ?? socket.localPort, child.spawnargs?.slice(0, 3).join(' '), held];
    return [h.constructor?.name ?? typeof h, ...peer.filter((p) => p !== undefined && p !== null && p !== '')].join(' ');
  });
  const timers = heldByTimers();
  return `${process.getActiveResourcesInfo().join(', ')}\n  ${[...described, ...timers].join('\n  ')}`;
}

/**
 * Where the report goes besides stderr: tap records only the exit code, so `npm test` restates these files at
 * the end of its output (scripts/lib/print-failures.mjs), where a CI log's tail shows them.
 */
const reportFile = () => join('.tap', 'exits', `${relative(process.cwd(), process.argv[1] ?? 'unknown')}.txt`);

/** Says what holds a test file on stderr and in its report file. */
export function report(text: string): void {
  process.stderr.write(text);
  mkdirSync(dirname(reportFile()), { recursive: true });
  appendFileSync(reportFile(), text);
}

/**
 * Names what keeps a finished test file alive, then ends it: a leak is said in `.tap/exits` (which `npm test`
 * prints), not left to the file's timeout with nothing said. The file's result stays what its tests said: what held
 * green browser files on loaded machines so far was three pipes of an exited child (once Chromium's, kept open by
 * its crash handlers), and failing green files for it failed CI three times. Imported by the helper every server test uses.
 */
t.teardown(() => {
  setTimeout(() => {
    // One-shot timers end by themselves (the file's own timeout bounds them): only what never ends is a leak.
    if (!heldByOtherThanTimers() && !heldByAnInterval()) return;
    try {
      report(`still alive ${GRACE_MS / 1000} s after its last test, ended: ${whatIsAlive()}\n`);
    } finally {
      process.exit(process.exitCode ?? 0);
    }
  }, GRACE_MS).unref();
});

/** Whether a handle that is not a timer (a socket, a server, a child process, a pipe) keeps this process alive. */
function heldByOtherThanTimers(): boolean {
  const handles = (process as unknown as { _getActiveHandles(): { hasRef?: () => boolean; _handle?: { hasRef?: () => boolean } }[] })._getActiveHandles();
  return handles.some((h) => (h.hasRef?.() ?? h._handle?.hasRef?.() ?? true) !== false);
}
