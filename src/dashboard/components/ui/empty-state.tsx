import type { ComponentChildren } from 'preact';

/** An empty list said in words: what is not there yet, and (children) what to do about it. */
export function EmptyState({ title, icon, compact = false, children }: { title: string; icon?: ComponentChildren; compact?: boolean; children?: ComponentChildren }) {
  return (
    <div class={compact ? 'empty-state compact' : 'empty-state'}>
      {icon && (
        <div class="empty-icon" aria-hidden="true">
          {icon}
        </div>
      )}
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}
