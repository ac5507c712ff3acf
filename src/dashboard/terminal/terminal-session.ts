import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { routeStyleAttributes, withAdoptedStyles } from './adopted-styles.js';

export interface TerminalEvents {
  onStatus(status: { state: 'connecting' | 'open' | 'ended'; text: string }): void;
}

/** The page's own colours of a live log (tokens.css): a terminal is dark in both themes, like the logs. */
function themeOf(element: HTMLElement) {
  const css = getComputedStyle(element);
  const token = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: token('--log-bg', '#0b0b0e'),
    foreground: token('--log-text', '#e4e4e7'),
    cursor: token('--log-text', '#e4e4e7'),
    selectionBackground: '#3f3f46',
  };
}

const EXEC_PROTOCOL = 'slipway.exec.v1';

/**
 * A terminal in `element`, connected to a shell in the service's running container over the API's WebSocket
 * (`GET /api/services/:id/exec?tty=1`, the session's CSRF token offered as a subprotocol). Answers its end:
 * closing the socket kills the shell.
 */
export function openTerminal(element: HTMLElement, serviceId: string, csrfToken: string, events: TerminalEvents): () => void {
  routeStyleAttributes();
  const fit = new FitAddon();
  const { result: terminal, release } = withAdoptedStyles(() => {
    const t = new Terminal({
      cursorBlink: true,
      fontFamily: getComputedStyle(element).getPropertyValue('--font-mono').trim() || 'monospace',
      fontSize: 13,
      scrollback: 5000,
      theme: themeOf(element),
    });
    t.loadAddon(fit);
    t.open(element);
    return t;
  });
  fit.fit();

  const url = new URL(`/api/services/${serviceId}/exec`, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = new URLSearchParams({ tty: '1', cols: String(terminal.cols), rows: String(terminal.rows) }).toString();
  const ws = new WebSocket(url, [EXEC_PROTOCOL, `csrf.${csrfToken}`]);
  ws.binaryType = 'arraybuffer';
  events.onStatus({ state: 'connecting', text: 'Connecting…' });
  let exited = false;
  const encoder = new TextEncoder();

  ws.onopen = () => {
    events.onStatus({ state: 'open', text: 'Connected' });
    terminal.focus();
  };
  ws.onmessage = (message: MessageEvent<ArrayBuffer | string>) => {
    if (typeof message.data !== 'string') return terminal.write(new Uint8Array(message.data));
    const control = JSON.parse(message.data) as { type?: string; exitCode?: number | null };
    if (control.type !== 'exit') return;
    exited = true;
    const code = control.exitCode ?? null;
    terminal.write(`\r\n\x1b[2m[exited${code === null ? '' : ` with code ${code}`}]\x1b[0m\r\n`);
    events.onStatus({ state: 'ended', text: code === null ? 'The shell ended' : `The shell exited with code ${code}` });
  };
  ws.onclose = (close) => {
    if (exited) return;
    // A refused upgrade reaches a browser only as a close without a reason (1006): say what usually causes it.
    const text = close.code === 1006 ? 'The terminal could not connect (no running container, too many open sessions, or the session ended)' : close.reason || 'The connection closed';
    events.onStatus({ state: 'ended', text });
  };
  const typed = terminal.onData((data) => ws.readyState === WebSocket.OPEN && ws.send(encoder.encode(data)));
  const resized = terminal.onResize(({ cols, rows }) => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: 'resize', cols, rows })));
  const observer = new ResizeObserver(() => fit.fit());
  observer.observe(element);

  return () => {
    observer.disconnect();
    typed.dispose();
    resized.dispose();
    ws.close();
    terminal.dispose();
    release();
  };
}
