import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';

export interface Tab<Id extends string = string> {
  id: Id;
  label: string;
}

const STEP: Record<string, (i: number, n: number) => number> = {
  ArrowRight: (i, n) => (i + 1) % n,
  ArrowLeft: (i, n) => (i - 1 + n) % n,
  Home: () => 0,
  End: (_, n) => n - 1,
};

/**
 * Tabs after the WAI-ARIA pattern: one tab stop, arrow keys, Home and End move between tabs. The selected tab
 * is the address's `?tab=`, so a reload or a shared link opens the same one; only its panel is drawn.
 */
export function Tabs<Id extends string>({ label, tabs, fallback, children }: { label: string; tabs: Tab<Id>[]; fallback?: Id; children: (selected: Id) => ComponentChildren }) {
  const { path, query, route } = useLocation();
  const buttons = useRef(new Map<Id, HTMLButtonElement>());
  const base = useId();
  // `fallback`: the tab an address without `?tab=` opens, when it is not the first.
  const selected = tabs.find((t) => t.id === query.tab)?.id ?? fallback ?? tabs[0]!.id;

  // On a phone the row scrolls sideways: the selected tab (one opened by its address too) is brought into it.
  useEffect(() => {
    const button = buttons.current.get(selected);
    // The row is positioned (tabs.css): a tab's offsetLeft is measured from it.
    const row = button?.parentElement;
    if (button && row) row.scrollLeft = Math.max(0, button.offsetLeft - (row.clientWidth - button.offsetWidth) / 2);
  }, [selected]);

  const select = (id: Id) => route(`${path}?${new URLSearchParams({ ...query, tab: id })}`, true);
  const onKeyDown = (event: KeyboardEvent) => {
    const step = STEP[event.key];
    if (!step) return;
    event.preventDefault();
    const next = tabs[step(tabs.findIndex((t) => t.id === selected), tabs.length)]!;
    select(next.id);
    buttons.current.get(next.id)?.focus();
  };

  return (
    <>
      <div class="tablist" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-${t.id}`}
            aria-selected={t.id === selected}
            aria-controls={`${base}-panel`}
            tabIndex={t.id === selected ? 0 : -1}
            ref={(el) => void (el ? buttons.current.set(t.id, el) : buttons.current.delete(t.id))}
            onClick={() => select(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-${selected}`} tabIndex={0}>
        {children(selected)}
      </div>
    </>
  );
}
