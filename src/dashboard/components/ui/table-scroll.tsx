import type { ComponentChildren } from 'preact';

/**
 * A table that may be wider than the screen: it scrolls inside this box, not the page. The box takes the focus
 * so that a keyboard can scroll it too, and is named after the table.
 */
export function TableScroll({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
