/** One service using another: `from` holds a reference to `to`. */
export interface Link {
  from: string;
  to: string;
}

/** More columns than this would not fit beside each other; deeper services share the last one. */
export const MAX_COLUMNS = 3;

/** The links without those that close a cycle, found by a depth-first walk in the services' order. */
function withoutCycles(ids: readonly string[], links: readonly Link[]): Link[] {
  const out = new Map<string, Link[]>(ids.map((id) => [id, []]));
  for (const link of links) if (link.from !== link.to && out.has(link.to)) out.get(link.from)?.push(link);
  const state = new Map<string, 'open' | 'done'>();
  const kept: Link[] = [];
  const visit = (id: string) => {
    state.set(id, 'open');
    for (const link of out.get(id)!) {
      const seen = state.get(link.to);
      if (seen === 'open') continue;
      kept.push(link);
      if (seen === undefined) visit(link.to);
    }
    state.set(id, 'done');
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return kept;
}

/**
 * Services in columns by how deep they are used: what nothing uses on the left, each service one column right
 * of the deepest that uses it, at most MAX_COLUMNS. Within a column, a service sits near those that use it.
 */
export function graphColumns(ids: readonly string[], links: readonly Link[]): string[][] {
  const acyclic = withoutCycles(ids, links);
  const depth = new Map<string, number>(ids.map((id) => [id, 0]));
  // Longest paths by relaxing every link as often as there are services: enough for an acyclic graph.
  for (let round = 0; round < ids.length; round++) {
    let moved = false;
    for (const { from, to } of acyclic) {
      const next = Math.min(depth.get(from)! + 1, MAX_COLUMNS - 1);
      if (next > depth.get(to)!) {
        depth.set(to, next);
        moved = true;
      }
    }
    if (!moved) break;
  }
  const columns: string[][] = [];
  for (const id of ids) (columns[depth.get(id)!] ??= []).push(id);
  const row = new Map<string, number>();
  columns.forEach((column, c) => {
    if (c > 0) {
      const users = (id: string) => links.filter((l) => l.to === id && row.has(l.from)).map((l) => row.get(l.from)!);
      const centre = (id: string) => {
        const rows = users(id);
        return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : Infinity;
      };
      column.sort((a, b) => centre(a) - centre(b) || ids.indexOf(a) - ids.indexOf(b));
    }
    column.forEach((id, r) => row.set(id, r));
  });
  return columns;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How far a curve leaves a card's side before it bends. */
const BEND = 56;

/** A cubic Bézier's point at t. */
function at(t: number, p0: number, p1: number, p2: number, p3: number): number {
  const u = 1 - t;
  return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

/**
 * An SVG path from the side of one card to the side of another, and where on it its label sits: in the gap
 * before the card it arrives at, so that a long edge's label does not land on a card it passes. To a card
 * further right it leaves by the right side and arrives by the left; further left, the other way; in the same
 * column it leaves and arrives on the right. `fromY` and `toY` place the ends along the sides (0 top, 1 bottom);
 * `gap` is the space between two columns, whose middle the label takes.
 */
export function edgePath(from: Box, to: Box, fromY = 0.5, toY = 0.5, gap = 96): { d: string; label: { x: number; y: number } } {
  const y0 = from.y + from.height * fromY;
  const y1 = to.y + to.height * toY;
  let x0: number, x1: number, c0: number, c1: number, labelX: number;
  if (to.x >= from.x + from.width) {
    x0 = from.x + from.width;
    x1 = to.x;
    const bend = Math.max(BEND, (x1 - x0) / 2);
    [c0, c1, labelX] = [x0 + bend, x1 - bend, x1 - gap / 2];
  } else if (to.x + to.width <= from.x) {
    x0 = from.x;
    x1 = to.x + to.width;
    const bend = Math.max(BEND, (x0 - x1) / 2);
    [c0, c1, labelX] = [x0 - bend, x1 + bend, x1 + gap / 2];
  } else {
    x0 = from.x + from.width;
    x1 = to.x + to.width;
    [c0, c1] = [Math.max(x0, x1) + BEND, Math.max(x0, x1) + BEND];
    labelX = at(0.5, x0, c0, c1, x1);
  }
  // The point of the curve nearest that x, among 65 along it: close enough for a label.
  let t = 0.5;
  for (let i = 0; i <= 64; i++) if (Math.abs(at(i / 64, x0, c0, c1, x1) - labelX) < Math.abs(at(t, x0, c0, c1, x1) - labelX)) t = i / 64;
  const r = (n: number) => Math.round(n * 10) / 10;
  return {
    d: `M${r(x0)} ${r(y0)} C${r(c0)} ${r(y0)} ${r(c1)} ${r(y1)} ${r(x1)} ${r(y1)}`,
    label: { x: r(at(t, x0, c0, c1, x1)), y: r(at(t, y0, y0, y1, y1)) },
  };
}

/** The space between two columns: the narrowest between a card and one further right; undefined with one column. */
export function columnGap(boxes: readonly Box[]): number | undefined {
  let gap: number | undefined;
  for (const a of boxes) for (const b of boxes) if (b.x >= a.x + a.width) gap = Math.min(gap ?? Infinity, b.x - a.x - a.width);
  return gap;
}

/** Where along a side each of `count` ends sits (0 top, 1 bottom): spread over the middle, one alone in it. */
export const spread = (index: number, count: number): number => 0.5 + (count > 1 ? (index / (count - 1) - 0.5) * 0.5 : 0);
