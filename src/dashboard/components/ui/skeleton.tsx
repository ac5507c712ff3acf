const WIDTHS = ['', 'line-medium', 'line-short'];

/** Grey shapes where content is loading (cards or lines); a screen reader hears "Loading…" once. */
export function Skeleton({ shape = 'lines', count = 3 }: { shape?: 'lines' | 'cards'; count?: number }) {
  const items = Array.from({ length: count }, (_, i) => i);
  return (
    <div class={shape === 'cards' ? 'skeleton-cards' : 'skeleton-group'} role="status">
      <span class="visually-hidden">Loading…</span>
      {items.map((i) =>
        shape === 'cards' ? (
          <div key={i} class="card skeleton-group" aria-hidden="true">
            <span class="skeleton line-medium" />
            <span class="skeleton line-short" />
            <span class="skeleton block" />
          </div>
        ) : (
          <span key={i} class={`skeleton ${WIDTHS[i % WIDTHS.length]}`} aria-hidden="true" />
        ),
      )}
    </div>
  );
}
