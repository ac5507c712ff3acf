import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { logLineHtml } from '../log-line-html.js';
import { pageVisible } from '../page-visible.js';

interface Line {
  id: number;
  line: string;
  stream: string;
}

/**
 * Slipway's own line that the deployment failed (it names the step and why): the one line a log paints as an
 * error. A step that went on another way ("Could not pull …; using the image present locally") is not one.
 */
const failedStep = (l: Line) => l.stream === 'system' && /^Deployment (failed|aborted)\b/.test(l.line);

/**
 * A Server-Sent Events log (`snapshot`, then `log` per line), coloured, following the tail unless the reader
 * scrolled up. A lost stream reconnects (EventSource does) and says so; `isOver` tells a stream that ended
 * from a lost one; `filter` keeps matching lines only. A stream that ends itself with an `end` event (a job run's,
 * carrying its final state) hands that to `onEnd`.
 */
export function LiveLog({
  url,
  filter = '',
  label,
  isOver,
  onEnd,
}: {
  url: string;
  filter?: string;
  label: string;
  isOver?: () => Promise<boolean>;
  onEnd?: (data: unknown) => void;
}) {
  const lines = useSignal<Line[]>([]);
  const state = useSignal<'connecting' | 'live' | 'reconnecting' | 'ended'>('connecting');
  const box = useRef<HTMLPreElement>(null);
  const follow = useRef(true);
  const ended = useRef(onEnd);
  ended.current = onEnd;

  const visible = pageVisible.value;
  useEffect(() => {
    lines.value = [];
  }, [url]);
  useEffect(() => {
    // A hidden page holds no stream (see page-visible.ts); shown again, the snapshot brings it up to date.
    if (!visible) return;
    const source = new EventSource(url);
    source.addEventListener('snapshot', (e) => {
      lines.value = JSON.parse((e as MessageEvent<string>).data) as Line[];
      state.value = 'live';
    });
    source.addEventListener('log', (e) => {
      const line = JSON.parse((e as MessageEvent<string>).data) as Line;
      // A reconnect sends the snapshot again: lines already shown are not repeated.
      if (lines.value.length === 0 || line.id > lines.value[lines.value.length - 1]!.id) lines.value = [...lines.value, line];
    });
    source.addEventListener('status', (e) => {
      if ((JSON.parse((e as MessageEvent<string>).data) as { closed: boolean }).closed) state.value = 'ended';
    });
    source.addEventListener('end', (e) => {
      source.close();
      state.value = 'ended';
      ended.current?.(JSON.parse((e as MessageEvent<string>).data));
    });
    // The server closes a deployment's stream when it ends; EventSource would reconnect, so ask first.
    source.onerror = async () => {
      // Offline, isOver cannot tell either: the stream is taken as lost, and EventSource tries again.
      if (state.value === 'ended' || (isOver && (await isOver().catch(() => false)))) {
        source.close();
        state.value = 'ended';
      } else state.value = 'reconnecting';
    };
    return () => source.close();
  }, [url, visible]);

  useEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  });

  const shown = filter ? lines.value.filter((l) => l.line.toLowerCase().includes(filter.toLowerCase())) : lines.value;
  return (
    <div class="live-log">
      <p class={`stream-state state-${state.value}`} role="status">
        {state.value === 'reconnecting' ? 'Connection lost — reconnecting…' : state.value === 'live' ? 'Live' : state.value === 'ended' ? 'Ended' : 'Connecting…'}
      </p>
      <pre
        ref={box}
        class="log"
        role="log"
        tabIndex={0}
        aria-label={label}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
        }}
      >
        {shown.map((l) => (
          <div key={l.id} data-line={l.id} class={`line line-${l.stream}${failedStep(l) ? ' line-failed' : ''}`} dangerouslySetInnerHTML={{ __html: logLineHtml(l.line) }} />
        ))}
      </pre>
    </div>
  );
}
