import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { csrfToken } from '../../session.js';
import { EmptyState } from '../ui/empty-state.js';

type Status = { state: 'loading' | 'connecting' | 'open' | 'ended'; text: string };

/**
 * A shell in the service's running container (xterm.js, loaded only when this tab opens). Leaving the tab closes
 * the session, which ends the shell.
 */
export function TerminalTab({ serviceId, running }: { serviceId: string; running: boolean }) {
  const screen = useRef<HTMLDivElement>(null);
  const status = useSignal<Status>({ state: 'loading', text: 'Loading the terminal…' });
  const attempt = useSignal(0);
  useEffect(() => {
    if (!running || !screen.current || !csrfToken.value) return;
    let close: (() => void) | null = null;
    let current = true;
    void import('../../terminal/terminal-session.js').then(({ openTerminal }) => {
      if (!current || !screen.current) return;
      close = openTerminal(screen.current, serviceId, csrfToken.value!, { onStatus: (s) => (status.value = s) });
    });
    return () => {
      current = false;
      close?.();
    };
  }, [serviceId, running, attempt.value]);
  if (!running) return <EmptyState title="The service is not running">A terminal opens in its running container: deploy or start it first.</EmptyState>;
  return (
    <div class="terminal-tab">
      <div class="terminal-bar">
        <span class={`terminal-status terminal-${status.value.state}`} role="status">
          {status.value.text}
        </span>
        {status.value.state === 'ended' && (
          <button type="button" class="btn-small" onClick={() => (attempt.value = attempt.value + 1)}>
            New session
          </button>
        )}
      </div>
      <div class="terminal-screen" ref={screen} aria-label="Terminal" />
    </div>
  );
}
