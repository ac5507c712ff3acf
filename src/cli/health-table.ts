import type { components } from '../shared/api-types.js';
import { out, table } from './api/output.js';

type Health = components['schemas']['Health'];

const lag = (behind: number, atLeast: boolean) => (behind === 0 ? 'up to date' : `${atLeast ? '≥' : ''}${behind} behind`);

/** `projections status` for people: one line per read model and process manager, then what else is checked. */
export function printHealth(h: Health) {
  out(
    table(
      ['READ MODEL', 'VERSION', 'LAG', 'PARKED', 'STATE'],
      h.projectors.map((p) => [p.name, `v${p.version}`, lag(p.behind, p.behindAtLeast), String(p.parked), p.state + (p.error ? ` (${p.error})` : '')]),
    ),
  );
  out('');
  out(
    table(
      ['PROCESS MANAGER', 'LAG', 'STATE'],
      h.processManagers.map((m) => [m.name, lag(m.behind, m.behindAtLeast), m.state + (m.error ? ` since ${m.pausedSince ?? '?'} (${m.error})` : '')]),
    ),
  );
  out('');
  out(`docker  ${h.docker.ok ? 'ok' : 'FAILING'}  ${h.docker.detail}`);
  out(`proxy   ${h.proxy.ok ? 'ok' : 'FAILING'}  ${h.proxy.detail}`);
  if (h.rebuild) out(`rebuild ${h.rebuild.phase}: ${h.rebuild.events}${h.rebuild.total === null ? '' : ` of ${h.rebuild.total}`} events`);
  for (const w of h.warnings) out(`warning: ${w}`);
  out(`${h.ok ? 'ok' : 'NOT OK'}: ${h.parked} parked event(s)${h.parked > 0 ? ' (slipway projections parked)' : ''}`);
}
