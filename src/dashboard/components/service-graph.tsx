import { useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../shared/api-types.js';
import { columnGap, edgePath, graphColumns, spread, type Box } from '../project-graph.js';
import { ServiceNode, type Service } from './service-node.js';

type Reference = components['schemas']['ServiceReference'];

/** The references from one service to another, drawn as one edge. */
interface Pair {
  from: Service;
  to: Service;
  refs: Reference[];
}

interface Layout {
  width: number;
  height: number;
  boxes: Record<string, Box>;
}

const LABEL_CHARS = 14;
/** The label's monospace glyphs are about 0.6 em wide at 11 px. */
const labelWidth = (text: string) => Math.round(text.length * 6.7 + 16);
const labelOf = (refs: Reference[]) => {
  const first = refs[0]!.key.length > LABEL_CHARS ? `${refs[0]!.key.slice(0, LABEL_CHARS - 1)}…` : refs[0]!.key;
  return refs.length > 1 ? `${first} +${refs.length - 1}` : first;
};
const usesOf = (refs: Reference[], names: Map<string, Service>) =>
  refs.map((r) => `${names.get(r.toServiceId)!.name}.${r.toKey}${r.key === r.toKey ? '' : ` (as ${r.key})`}`);

function pairsOf(references: readonly Reference[], byId: Map<string, Service>): Pair[] {
  const pairs = new Map<string, Pair>();
  for (const r of references) {
    const from = byId.get(r.fromServiceId);
    const to = byId.get(r.toServiceId);
    if (!from || !to) continue;
    const key = `${from.id} ${to.id}`;
    if (!pairs.has(key)) pairs.set(key, { from, to, refs: [] });
    pairs.get(key)!.refs.push(r);
  }
  return [...pairs.values()];
}

/** Where each card sits inside the canvas, measured after layout: the edges are drawn between them. */
function useLayout(canvas: { current: HTMLElement | null }, cards: Map<string, HTMLElement>, deps: unknown[]): Layout | null {
  const [layout, setLayout] = useState<Layout | null>(null);
  useLayoutEffect(() => {
    const root = canvas.current;
    if (!root) return;
    const measure = () => {
      const origin = root.getBoundingClientRect();
      const boxes: Record<string, Box> = {};
      for (const [id, card] of cards) {
        const r = card.getBoundingClientRect();
        boxes[id] = { x: r.left - origin.left, y: r.top - origin.top, width: r.width, height: r.height };
      }
      const next = { width: Math.ceil(origin.width), height: Math.ceil(origin.height), boxes };
      setLayout((previous) => (JSON.stringify(previous) === JSON.stringify(next) ? previous : next));
    };
    measure();
    // Fonts arriving, a relative time growing, the window turning: the cards move, the edges follow.
    const observer = new ResizeObserver(measure);
    observer.observe(root);
    for (const card of cards.values()) observer.observe(card);
    return () => observer.disconnect();
  }, deps);
  return layout;
}

/** The edges between the cards, behind them; decorative, since each card says what it uses in words. */
function Edges({ pairs, layout, active }: { pairs: Pair[]; layout: Layout; active: string | null }) {
  const marker = useId();
  const gap = columnGap(Object.values(layout.boxes));
  const ends = (list: Pair[], side: 'from' | 'to', pair: Pair) => {
    const other = side === 'from' ? 'to' : 'from';
    const mine = list.filter((p) => p[side].id === pair[side].id).sort((a, b) => (layout.boxes[a[other].id]?.y ?? 0) - (layout.boxes[b[other].id]?.y ?? 0));
    return spread(mine.indexOf(pair), mine.length);
  };
  return (
    <svg class="graph-edges" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} aria-hidden="true">
      <defs>
        {['', '-active'].map((suffix) => (
          <marker key={suffix} id={`${marker}${suffix}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path class={`edge-arrow${suffix}`} d="M1 1.5 9 5 1 8.5z" />
          </marker>
        ))}
      </defs>
      {pairs.map((pair) => {
        const from = layout.boxes[pair.from.id];
        const to = layout.boxes[pair.to.id];
        if (!from || !to) return null;
        const { d, label: at } = edgePath(from, to, ends(pairs, 'from', pair), ends(pairs, 'to', pair), gap);
        const label = labelOf(pair.refs);
        const width = labelWidth(label);
        const lit = active === pair.from.id || active === pair.to.id;
        const state = active === null ? '' : lit ? ' is-active' : ' is-dim';
        return (
          <g key={`${pair.from.id} ${pair.to.id}`} class={`graph-edge${state}`} data-from={pair.from.id} data-to={pair.to.id}>
            <title>{pair.refs.map((r) => `${pair.from.name}.${r.key} → ${pair.to.name}.${r.toKey}`).join('\n')}</title>
            <path class="edge-hit" d={d} />
            <path class="edge-line" d={d} marker-end={`url(#${marker}${lit ? '-active' : ''})`} />
            <g class="edge-label" transform={`translate(${at.x} ${at.y})`}>
              <rect x={-width / 2} y={-10} width={width} height={20} rx={10} />
              <text text-anchor="middle" dy="0.35em">
                {label}
              </text>
            </g>
          </g>
        );
      })}
    </svg>
  );
}

/**
 * A project's services as cards in columns by how deep they are used, with their references drawn between them.
 * Cards come in columns' order, top to bottom, which is their tab order too; where the columns do not fit, they
 * are a list instead, each card saying what it uses.
 */
export function ServiceGraph({ services, references, label }: { services: Service[]; references: Reference[]; label: string }) {
  const byId = new Map(services.map((s) => [s.id, s]));
  const pairs = pairsOf(references, byId);
  const columns = graphColumns(
    services.map((s) => s.id),
    pairs.map((p) => ({ from: p.from.id, to: p.to.id })),
  );
  const canvas = useRef<HTMLDivElement>(null);
  const cards = useRef(new Map<string, HTMLElement>()).current;
  const [active, setActive] = useState<string | null>(null);
  const layout = useLayout(canvas, cards, [services, references]);
  return (
    <div class="graph">
      <div class={`graph-body cols-${columns.length}`}>
        <div class="graph-scroll">
          <div class="graph-canvas" ref={canvas}>
            {layout && pairs.length > 0 && <Edges pairs={pairs} layout={layout} active={active} />}
            <ul class="graph-nodes" aria-label={label}>
              {columns.flatMap((column, c) =>
                column.map((id) => (
                  <li key={id} class={`graph-node col-${c}`}>
                    <ServiceNode
                      service={byId.get(id)!}
                      uses={usesOf(pairs.filter((p) => p.from.id === id).flatMap((p) => p.refs), byId)}
                      cardRef={(el) => void (el ? cards.set(id, el) : cards.delete(id))}
                      active={(on) => setActive((current) => (on ? id : current === id ? null : current))}
                    />
                  </li>
                )),
              )}
            </ul>
          </div>
        </div>
        {pairs.length > 0 && <p class="graph-legend">An arrow points from a service to the one whose variable it uses. Hover or focus a card to light up its references.</p>}
      </div>
    </div>
  );
}
