import { lastWords, find, quote } from './log-lines.js';
import { patchService, redeploy, setVariable } from './commands.js';
import type { BuiltinRule } from './rule.js';

const SIZE = /^(\d+(?:\.\d+)?)([kmg])?b?$/i;

/** Twice a memory size in Slipway's own notation ("64m" → "128m"), or null when it is not one. */
export function doubled(size: string): string | null {
  const m = SIZE.exec(size.trim());
  if (!m) return null;
  const twice = Number(m[1]) * 2;
  return `${Number.isInteger(twice) ? twice : twice.toFixed(1)}${(m[2] ?? '').toLowerCase()}`;
}

export const outOfMemory: BuiltinRule = {
  id: 'out-of-memory',
  explain(input) {
    const { reason } = input;
    const killed = reason.match(/(?:exited with code|returned a non-zero code:|exit code:) 137\b|was killed: out of memory/);
    const oom = find(input.lines, /OOMKilled|Out of memory: Killed process|JavaScript heap out of memory/);
    const limit = /out of memory \(limit ([^)]+)\)/.exec(reason)?.[1];
    if (!killed && !oom && !limit) return null;
    const last = lastWords(input);
    const said = last ? ` Its last output was ${quote(last.lines.at(-1)!)}.` : '';
    if (limit) {
      const more = doubled(limit) ?? '…';
      return {
        summary: `The app used more memory than its limit of ${limit} and was killed (out of memory).`,
        likelyCause: `The container runs with a memory limit of ${limit} (the service's resources.memory, or the installation's defaultResources); it reached it and the kernel killed it (OOMKilled, exit code 137). Slipway recorded ${quote(reason)}.${said}`,
        suggestedFix: `Raise the service's resources.memory (PATCH /api/services/:id with {"resources": {"memory": "${more}"}}, or null for no limit), or make the app use less at start (fewer workers or threads, smaller caches; for Node NODE_OPTIONS=--max-old-space-size=… below the limit). Then deploy again.`,
        commands: [patchService({ resources: { memory: more } }), redeploy, 'docker stats --no-stream'],
      };
    }
    const during = /^docker build/.test(reason) ? 'build' : 'start';
    const heap = oom && /JavaScript heap out of memory/.test(oom[0]);
    const evidence = [killed ? `the reason ${quote(reason)}` : null, oom ? `the log line ${quote(oom.input ?? oom[0])}` : null].filter(Boolean).join(' and ');
    return {
      summary: heap
        ? `The ${during === 'build' ? 'build' : 'app'} ran out of JavaScript heap memory and Node.js stopped it.`
        : `The ${during === 'build' ? 'build' : 'app'} ran out of memory and was killed${killed ? ' (exit code 137: SIGKILL)' : ''}.`,
      likelyCause: heap
        ? `Node.js hit its heap limit: ${evidence}. The ${during} needs more memory than Node's default heap allows, or more than the server has.`
        : `Exit code 137 means the process was killed with SIGKILL, almost always by the kernel's out-of-memory killer (${evidence}). No memory limit was set for it, so the server itself ran out of memory during the ${during}.${during === 'start' ? said : ''}`,
      suggestedFix:
        during === 'build'
          ? 'Give the build more memory: add swap or RAM to the server, or make the build lighter (for Node, limit the heap with NODE_OPTIONS=--max-old-space-size=… in the Dockerfile; build fewer things in parallel). Then deploy again.'
          : "Reduce the app's memory use at start (fewer workers or threads, smaller caches; for Node NODE_OPTIONS=--max-old-space-size=…), or add memory or swap to the server. Then deploy again.",
      commands: ['free -m', 'docker stats --no-stream', "sudo dmesg | grep -i -E 'killed process|out of memory'", ...(heap ? [setVariable('NODE_OPTIONS', '--max-old-space-size=512')] : [])],
    };
  },
};
